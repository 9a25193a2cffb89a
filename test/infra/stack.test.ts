/**
 * The stack's checks, one file per concern under checks/, run in this one module registry: each
 * stage variant is synthesized once per run (./synth.ts) and every check reads it, instead of
 * each file loading aws-cdk-lib and synthesizing again.
 */
import './checks/up-front.ts';
import './checks/api.ts';
import './checks/approval.ts';
import './checks/audit.ts';
import './checks/cfn-lint.ts';
import './checks/control-tower.ts';
import './checks/data.ts';
import './checks/deploy-rules.ts';
import './checks/docs-figures.ts';
import './checks/functions.ts';
import './checks/identity.ts';
import './checks/import-drop.ts';
import './checks/nag.ts';
import './checks/operations.ts';
import './checks/rollback.ts';
import './checks/alarms.ts';
import './checks/settings.ts';
import './checks/staff-app.ts';
import { removeSyntheses } from './synth.ts';

afterAll(removeSyntheses);
