/**
 * The staff page of a stage (staff-app/): its files in a private bucket, served by CloudFront
 * through origin access control at `https://<distribution>/app/`, with the page's security
 * headers on every answer (staff-app/security-headers.ts, the same list the local gateway sends).
 * Its config.json names the stage's API and app client, written at deploy time so one build of
 * the page serves every stage.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AssetHashType,
  Aws,
  CfnCondition,
  CfnResource,
  DockerImage,
  Duration,
  Fn,
  RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import {
  type CfnDistribution,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  PriceClass,
  ResponseHeadersPolicy,
  S3OriginAccessControl,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { RegionInfo } from 'aws-cdk-lib/region-info';
import { Bucket, ObjectOwnership, type CfnBucket, type IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { CONFIG_FILE, type StaffAppConfig } from '../staff-app/config.ts';
import { STAFF_APP_PATH, buildStaffApp, staffAppIndex } from '../staff-app/files.ts';
import { HSTS_SECONDS, connectSrc, securityHeaders } from '../staff-app/security-headers.ts';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { PRIVATE_BUCKET, earlierVersionsRule, logBucket } from './data.ts';
import { INCOMPLETE_UPLOAD_DAYS } from '../core/retention.ts';
import { AUDIT_RETENTION, removalPolicyFor } from './retention.ts';
import { PROJECT_ROOT } from '../core/project-root.ts';
import type { PriceClassName, StaffPageDomain } from '../stage/settings.ts';

/**
 * The regions whose buckets CloudFront delivers standard logs (legacy) to: those AWS enables by
 * default. CloudFront delivers none to a bucket in an opt-in region (Amazon CloudFront Developer
 * Guide, standard logging (legacy), choosing a bucket for the logs), and every region AWS opens
 * now is opt-in, so this list is closed. Read from aws-cdk-lib's region facts, kept by CDK's
 * maintainers rather than by hand; a stage anywhere else goes without the page's access logs.
 */
export const CLOUDFRONT_LOGS_REGIONS: readonly string[] = RegionInfo.regions
  .filter((r) => r.partition === 'aws' && !r.isOptInRegion)
  .map((r) => r.name);

/** True where the stage's region is one of CLOUDFRONT_LOGS_REGIONS (Fn::Or takes 10 at most). */
function cloudFrontLogsDelivered(scope: Construct): CfnCondition {
  const equals = CLOUDFRONT_LOGS_REGIONS.map((region) => Fn.conditionEquals(Aws.REGION, region));
  const groups = [];
  for (let i = 0; i < equals.length; i += 10)
    groups.push(Fn.conditionOr(...equals.slice(i, i + 10)));
  return new CfnCondition(scope, 'CloudFrontLogsDelivered', {
    expression: Fn.conditionOr(...groups),
  });
}

/** How long an earlier build of the page stays in its bucket after a deploy replaced it. */
const PAGE_VERSIONS_DAYS = 30;

export interface StaffAppProps {
  /** The bucket whose presigned URLs the page shows as images (signatures, ID photos). */
  readonly filesBucket: IBucket;
  readonly accessLogsBucket: IBucket;
  /** A test stage (stage/stage.ts): its log bucket and deploy log go with it. */
  readonly disposable: boolean;
  /** The edges that serve the page (Settings.priceClass). */
  readonly priceClass: PriceClassName;
  /** The business's own domain and its certificate (Settings.staffPageDomain). */
  readonly domain?: StaffPageDomain;
}

/** The construct library's name for each price class setting. */
const PRICE_CLASS: Record<PriceClassName, PriceClass> = {
  PriceClass_100: PriceClass.PRICE_CLASS_100,
  PriceClass_200: PriceClass.PRICE_CLASS_200,
  PriceClass_All: PriceClass.PRICE_CLASS_ALL,
};

/**
 * `/app/` and any folder URL below it serve that folder's index.html (S3 has no such notion); the
 * distribution's root sends the browser to the page, whose files it names relative to `/app/`.
 * On the business's own domain, a request for the distribution's own name (where CloudFront
 * accepts TLS 1.0) is sent to the domain, so the page is served only under TLS 1.2 at least.
 */
function indexRewrite(domain: string | undefined): string {
  const toDomain =
    domain === undefined
      ? ''
      : `
  if (request.headers.host && request.headers.host.value !== '${domain}')
    return { statusCode: 301, statusDescription: 'Moved Permanently', headers: { location: { value: 'https://${domain}' + request.uri } } };`;
  return `function handler(event) {
  var request = event.request;${toDomain}
  if (request.uri === '/')
    return { statusCode: 302, statusDescription: 'Found', headers: { location: { value: '${STAFF_APP_PATH}' } } };
  if (request.uri.endsWith('/')) request.uri += 'index.html';
  return request;
}`;
}

export class StaffApp extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /** https://<the business's domain, or the distribution's>: the origin the API's CORS allows. */
  readonly origin: string;
  /** The page's address, the stack output StaffAppUrl. */
  readonly url: string;

  private readonly disposable: boolean;
  private readonly cognitoOrigin: string;

  constructor(scope: Construct, id: string, props: StaffAppProps) {
    super(scope, id);
    this.disposable = props.disposable;
    const { region, urlSuffix } = Stack.of(this);

    this.bucket = new Bucket(this, 'Bucket', {
      ...PRIVATE_BUCKET,
      // It holds nothing the repository cannot build again, so it goes with the stack, and
      // CDK's handler empties it of every version first: on `cdk destroy`, and on a rolled-back
      // create after the page was copied in (S3 deletes no bucket that holds an object, a
      // version or a delete marker).
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
      serverAccessLogsBucket: props.accessLogsBucket,
      serverAccessLogsPrefix: 'staff-app-bucket/',
      // Each deploy replaces the page's files: an earlier build stays a while, then goes.
      versioned: true,
      lifecycleRules: [
        {
          ...earlierVersionsRule(PAGE_VERSIONS_DAYS),
          abortIncompleteMultipartUploadAfter: Duration.days(INCOMPLETE_UPLOAD_DAYS),
        },
      ],
    });
    // CloudFront's access logs (standard logging, legacy): its newer log delivery is set up
    // only in us-east-1, where a stage seldom is (docs/decisions/0027).
    const logsBucket = new Bucket(this, 'LogsBucket', {
      ...logBucket(props.disposable),
      // CloudFront writes its logs with an ACL grant: the one bucket with ACLs on.
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      serverAccessLogsBucket: props.accessLogsBucket,
      serverAccessLogsPrefix: 'staff-app-logs-bucket/',
    });

    // The API's URL cannot be named in the header: the API's CORS names this distribution, and
    // CloudFormation allows no cycle. The header allows the region's execute-api hosts; the
    // page's own <meta> policy, written at deploy time (deploy()), narrows that to the API.
    const bucketName = props.filesBucket.bucketName;
    this.cognitoOrigin = `https://cognito-idp.${region}.${urlSuffix}`;
    const headers = securityHeaders({
      api: `https://*.execute-api.${region}.${urlSuffix}`,
      cognito: this.cognitoOrigin,
      files: `https://${bucketName}.s3.${region}.${urlSuffix} https://${bucketName}.s3.${urlSuffix}`,
    });
    const responseHeaders = new ResponseHeadersPolicy(this, 'Headers', {
      // CloudFront's names are the account's, across regions: the same stage in two regions
      // needs two names. (An account holds 20 response headers policies: docs/operations.md.)
      responseHeadersPolicyName: `${Stack.of(this).stackName}-${region}-staff-page`,
      comment: 'The staff page: staff-app/security-headers.ts',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy: headers['content-security-policy']!,
          override: true,
        },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.seconds(HSTS_SECONDS),
          includeSubdomains: true,
          override: true,
        },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
      },
      customHeadersBehavior: {
        customHeaders: ['permissions-policy', 'cross-origin-opener-policy'].map((header) => ({
          header,
          value: headers[header]!,
          override: true,
        })),
      },
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: `${Stack.of(this).stackName} staff page`,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket, {
          // Named as the response headers policy is, for the same reason.
          originAccessControl: new S3OriginAccessControl(this, 'OriginAccess', {
            originAccessControlName: `${Stack.of(this).stackName}-${region}`,
            description: 'The staff page reads its bucket',
          }),
        }),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        responseHeadersPolicy: responseHeaders,
        functionAssociations: [
          {
            eventType: FunctionEventType.VIEWER_REQUEST,
            function: new CloudFrontFunction(this, 'IndexRewrite', {
              code: FunctionCode.fromInline(indexRewrite(props.domain?.name)),
              runtime: FunctionRuntime.JS_2_0,
              comment: 'Folder URLs serve their index.html',
            }),
          },
        ],
      },
      // The root answers the function's redirect; were it ever reached, it would be the page.
      defaultRootObject: `${STAFF_APP_PATH.slice(1)}index.html`,
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PRICE_CLASS[props.priceClass],
      // On the business's own domain, TLS 1.2 at least: on *.cloudfront.net CloudFront sets the
      // policy itself and accepts TLS 1.0 (docs/decisions/0027).
      ...(props.domain === undefined
        ? {}
        : {
            domainNames: [props.domain.name],
            certificate: Certificate.fromCertificateArn(
              this,
              'Certificate',
              props.domain.certificateArn,
            ),
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
          }),
    });
    // Standard logging (legacy) where CloudFront delivers it, no Logging elsewhere: set in the
    // template, since CDK's logBucket cannot be made conditional.
    (this.distribution.node.defaultChild as CfnDistribution).addPropertyOverride(
      'DistributionConfig.Logging',
      Fn.conditionIf(
        cloudFrontLogsDelivered(this).logicalId,
        { Bucket: logsBucket.bucketRegionalDomainName, IncludeCookies: false },
        Aws.NO_VALUE,
      ),
    );
    this.origin = `https://${props.domain?.name ?? this.distribution.distributionDomainName}`;
    this.url = `${this.origin}${STAFF_APP_PATH}`;

    for (const [rule, reason] of [
      [
        'AwsSolutions-CFR1',
        'No geo restriction: staff sign in from wherever the business works; Cognito with a ' +
          'second factor decides who gets in, not the country.',
      ],
      [
        'AwsSolutions-CFR2',
        'No WAF web ACL: the distribution serves three static files and config.json, nothing ' +
          'of a record; sign-in is rate limited and protected by Cognito, the API by its own ' +
          'throttling and read budgets. A web ACL costs at least $5 a month per stage.',
      ],
      [
        'AwsSolutions-CFR3',
        'Access logs are on wherever CloudFront delivers them (every region but the opt-in ' +
          'ones, CLOUDFRONT_LOGS_REGIONS), set through Fn::If, which this rule does not read.',
      ],
    ] as const)
      Validations.of(this.distribution).acknowledge({ id: rule, reason });
    // Only on *.cloudfront.net: with the business's domain the policy is TLSv1.2_2021 and the
    // rule holds.
    if (props.domain === undefined)
      Validations.of(this.distribution).acknowledge({
        id: 'AwsSolutions-CFR4',
        reason:
          "The distribution uses CloudFront's default certificate (*.cloudfront.net), for which " +
          'CloudFront allows TLSv1 at the viewer whatever the setting; TLSv1.2_2021 applies with ' +
          'the staffPageDomain and staffPageCertificateArn settings.',
      });
  }

  /** Puts the page and its config.json in the bucket, and clears CloudFront's copies. */
  deploy(config: Omit<StaffAppConfig, 'cognitoEndpoint'>): void {
    const prefix = STAFF_APP_PATH.slice(1);
    const files = new BucketDeployment(this, 'Files', {
      destinationBucket: this.bucket,
      destinationKeyPrefix: prefix,
      sources: [
        Source.asset(join(PROJECT_ROOT, 'staff-app'), {
          // The bundle's own hash: a new SDK or esbuild in node_modules is a new page.
          assetHashType: AssetHashType.OUTPUT,
          bundling: {
            // Bundled here by esbuild, as the functions are; never in a container.
            image: DockerImage.fromRegistry('none'),
            local: {
              tryBundle(outputDir: string) {
                mkdirSync(outputDir, { recursive: true });
                for (const [name, file] of Object.entries(buildStaffApp()))
                  if (name !== 'index.html') writeFileSync(join(outputDir, name), file.body);
                return true;
              },
            },
          },
        }),
        // The page names this stage's API exactly, which the header cannot (see the constructor).
        Source.data(
          'index.html',
          staffAppIndex(connectSrc({ api: config.apiUrl, cognito: this.cognitoOrigin })),
        ),
        Source.jsonData(CONFIG_FILE, config),
      ],
      // Browsers ask again each time: a deploy is seen at the next load, not a day later.
      cacheControl: [CacheControl.noCache()],
      distribution: this.distribution,
      distributionPaths: [`${STAFF_APP_PATH}*`],
      // Not waited for: CloudFront's waiter fails now and then (aws-cdk#15891), and a first
      // deploy has nothing cached. The next load asks again anyway (no-cache).
      waitForDistributionInvalidation: false,
      memoryLimit: 256,
      prune: true,
      // Kept as every log group of the stage is (lib/retention.ts): who deployed what, when.
      logGroup: new LogGroup(this, 'DeployLogs', {
        retention: AUDIT_RETENTION,
        removalPolicy: removalPolicyFor(this.disposable),
      }),
    });
    // Copied only once the handler that empties the bucket exists, and so deleted before it runs:
    // whichever resource of a create fails, the rollback finds the bucket emptied.
    const emptier = this.bucket.node
      .findAll()
      .find((c) => c instanceof CfnResource && c.cfnResourceType === 'Custom::S3AutoDeleteObjects');
    if (!emptier) throw new Error('The staff page bucket needs autoDeleteObjects: see its removal');
    files.node.addDependency(emptier);
    // CDK's bucket deployment handler (one per stack) copies the page's files at deploy time.
    const copying =
      "CDK's bucket deployment handler copies the staff page's files from CDK's asset bucket " +
      'into the staff page bucket at deploy time, and deletes what a new build no longer has';
    const acknowledgements: [string, string][] = [
      [
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        `${copying}; it logs with the basic execution role.`,
      ],
      [
        'AwsSolutions-L1',
        'It runs on the runtime this CDK version chose for it (upgrading aws-cdk-lib upgrades it), only at deploy time.',
      ],
      ...['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*'].map(
        (action): [string, string] => [
          `AwsSolutions-IAM5[Action::${action}]`,
          `${copying}: CDK's grant of read (asset bucket) and read-write (page bucket) on objects.`,
        ],
      ),
      [
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
        `${copying}: the asset's key is known only at deploy time.`,
      ],
      [
        `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnBucket)}.Arn>/*]`,
        `${copying}: every object of the staff page bucket, which holds nothing else.`,
      ],
      [
        'AwsSolutions-IAM5[Resource::*]',
        'cloudfront:CreateInvalidation and GetInvalidation, as CDK grants them: after a deploy ' +
          "the handler clears CloudFront's cached copies of /app/*.",
      ],
    ];
    for (const handler of Stack.of(this).node.children)
      if (handler.node.id.startsWith('Custom::CDKBucketDeployment'))
        for (const [id, reason] of acknowledgements) {
          const on = handler.node.findChild(id === 'AwsSolutions-L1' ? 'Resource' : 'ServiceRole');
          Validations.of(on).acknowledge({ id, reason });
        }
  }
}
