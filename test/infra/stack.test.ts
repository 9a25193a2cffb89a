/**
 * The stack's checks, one file per concern under checks/, run in this one module registry: each
 * stage variant is synthesized once per run (./synth.ts) and every check reads it, instead of
 * each file loading aws-cdk-lib and synthesizing again.
 */
import './checks/up-front';
import './checks/api';
import './checks/audit';
import './checks/cfn-lint';
import './checks/data';
import './checks/deploy-rules';
import './checks/docs-figures';
import './checks/functions';
import './checks/identity';
import './checks/import-drop';
import './checks/nag';
import './checks/operations';
import './checks/alarms';
import './checks/settings';
import './checks/staff-app';
import { removeSyntheses } from './synth';

afterAll(removeSyntheses);
