/** SPEC 9 locally through the drop, one drop for both halves (./import-drop/), reports first: the audit check reads what they wrote. */
import './import-drop/reports.ts';
import './import-drop/workflow.ts';
