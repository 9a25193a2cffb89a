/**
 * The functions' DynamoDB client takes its SDK settings from the environment only (./README.md).
 * The SDK looks each unset setting up in the shared config files (~/.aws/config, credentials),
 * which a Lambda function does not have: on a first request that is two failed file reads, and
 * errors built and caught for each setting, all for nothing (the cost: ./README.md). The same
 * environment variables are read, by the SDK's own selectors, with the SDK's defaults.
 */
import { NODE_ACCOUNT_ID_ENDPOINT_MODE_CONFIG_OPTIONS } from '@aws-sdk/core/account-id-endpoint';
import { NODE_APP_ID_CONFIG_OPTIONS } from '@aws-sdk/core/client';
import { NODE_AUTH_SCHEME_PREFERENCE_OPTIONS } from '@aws-sdk/core/httpAuthSchemes';
import { NODE_ENDPOINT_DISCOVERY_CONFIG_OPTIONS } from '@aws-sdk/middleware-endpoint-discovery';
import {
  NODE_USE_DUALSTACK_ENDPOINT_CONFIG_OPTIONS,
  NODE_USE_FIPS_ENDPOINT_CONFIG_OPTIONS,
  SelectorType,
  booleanSelector,
} from '@smithy/core/config';
import { DEFAULT_RETRY_MODE, NODE_RETRY_MODE_CONFIG_OPTIONS } from '@smithy/core/retry';

type Env = Record<string, string | undefined>;

/** The part of the SDK's setting descriptions (LoadedConfigSelectors) read here. */
interface Selectors<T> {
  environmentVariableSelector: (env: Env) => T | undefined;
  default: T | (() => T | Promise<T>);
}

/** A setting as the SDK resolves it when neither config file has it: environment, else default. */
function fromEnvironment<T>(env: Env, selectors: Selectors<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () =>
    (value ??= (async () => {
      const set = selectors.environmentVariableSelector(env);
      if (set !== undefined) return set;
      const fallback = selectors.default;
      return typeof fallback === 'function' ? (fallback as () => T | Promise<T>)() : fallback;
    })());
}

/** The SDK's name for it (not exported by @aws-sdk/core): AWS_DISABLE_CLOCK_SKEW_CORRECTION. */
const CLOCK_SKEW_VARIABLE = 'AWS_DISABLE_CLOCK_SKEW_CORRECTION';

/**
 * DynamoDBClient settings: every one the client would look up in the files (its runtimeConfig),
 * and the endpoint URL settings ignored (AWS_ENDPOINT_URL*, `endpoint_url`): the functions reach
 * DynamoDB at the SDK's regional endpoint, or at DYNAMODB_ENDPOINT locally.
 */
export function environmentSettings(env: Env = process.env) {
  return {
    accountIdEndpointMode: fromEnvironment(env, NODE_ACCOUNT_ID_ENDPOINT_MODE_CONFIG_OPTIONS),
    authSchemePreference: fromEnvironment(env, NODE_AUTH_SCHEME_PREFERENCE_OPTIONS),
    endpointDiscoveryEnabledProvider: fromEnvironment(env, NODE_ENDPOINT_DISCOVERY_CONFIG_OPTIONS),
    // The SDK's default comes from the defaults mode: "standard" in every mode.
    retryMode: fromEnvironment(env, {
      ...NODE_RETRY_MODE_CONFIG_OPTIONS,
      default: DEFAULT_RETRY_MODE,
    }),
    useDualstackEndpoint: fromEnvironment(env, NODE_USE_DUALSTACK_ENDPOINT_CONFIG_OPTIONS),
    useFipsEndpoint: fromEnvironment(env, NODE_USE_FIPS_ENDPOINT_CONFIG_OPTIONS),
    userAgentAppId: fromEnvironment(env, NODE_APP_ID_CONFIG_OPTIONS),
    disableClockSkewCorrection: async () =>
      booleanSelector(env, CLOCK_SKEW_VARIABLE, SelectorType.ENV) ?? false,
    ignoreConfiguredEndpointUrls: true,
  };
}
