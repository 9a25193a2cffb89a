/** `npm run access` and what it changes, against one local stack for both halves (./access/). */
import './access/verbs.ts';
import './access/enforced.ts';
