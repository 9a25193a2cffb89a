/**
 * The approval prompt's checklist (docs/operations/first-deploy.md) against what `cdk deploy`'s
 * security diff shows on every stage: each role's assuming service, each AWS managed policy, each
 * action of an identity statement on `*` or on a resource that is not the stack's own by
 * reference is named there, so that an operator who reads the list can say yes knowingly.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../core/project-root.ts';
import { DISPOSABLE_DEV_CONTEXT, resourcesOf, synthesize, type Json } from '../synth.ts';

const STAGES = [
  ['the default stage', {}],
  ['a named stage', { stage: 'prod' }],
  ['a disposable stage', DISPOSABLE_DEV_CONTEXT],
] as const;

const doc = readFileSync(join(PROJECT_ROOT, 'docs/operations/first-deploy.md'), 'utf8');
const checklist = doc.slice(doc.indexOf('**The approval prompt.**'), doc.indexOf('Otherwise `n`.'));
const list = <T>(x: T | T[] | undefined): T[] =>
  x === undefined ? [] : Array.isArray(x) ? x : [x];

/** The logical ids a value refers to (Ref, Fn::GetAtt), pseudo parameters aside. */
function references(value: Json, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) references(v, into);
  else if (value && typeof value === 'object') {
    if (typeof value.Ref === 'string' && !value.Ref.startsWith('AWS::')) into.add(value.Ref);
    if (Array.isArray(value['Fn::GetAtt'])) into.add(value['Fn::GetAtt'][0]);
    for (const v of Object.values(value)) references(v, into);
  }
  return into;
}

test.each(STAGES)(
  '%s: the checklist names everything the security diff shows',
  (_name, context) => {
    const { json } = synthesize({ context });
    const unnamed: string[] = [];
    const named = (what: string, where: string) => {
      if (!checklist.includes(`\`${what}\``)) unnamed.push(`${what} (${where})`);
    };
    for (const [id, role] of resourcesOf(json, 'AWS::IAM::Role')) {
      for (const st of role.Properties!.AssumeRolePolicyDocument.Statement as Json[])
        for (const service of list<string>(st.Principal?.Service)) named(service, id);
      if (st(role.Properties!.AssumeRolePolicyDocument).some((s) => s.Principal?.AWS !== undefined))
        unnamed.push(`an AWS principal (${id})`);
      for (const arn of list<Json>(role.Properties!.ManagedPolicyArns))
        named(JSON.stringify(arn).split('/').pop()!.replace(/"\W*$/, ''), id);
    }
    const documents = [
      ...resourcesOf(json, 'AWS::IAM::Policy').map(([id, p]) => [id, p.Properties!.PolicyDocument]),
      ...resourcesOf(json, 'AWS::IAM::Role').flatMap(([id, r]) =>
        list<Json>(r.Properties!.Policies).map((p) => [id, p.PolicyDocument]),
      ),
    ] as [string, Json][];
    expect(documents.length).toBeGreaterThan(0);
    for (const [id, document] of documents)
      for (const s of st(document)) {
        const resources = list<Json>(s.Resource);
        const own = resources.every(
          (r) => r !== '*' && [...references(r)].some((ref) => ref in json.Resources),
        );
        if (!own) for (const action of list<string>(s.Action)) named(action, id);
      }
    expect(unnamed).toEqual([]);
  },
);

function st(document: Json): Json[] {
  return list<Json>(document.Statement);
}
