#!/usr/bin/env node
/** CDK entry point (`cdk.json` runs it with tsx). Everything is in lib/; see lib/app.ts. */
import { createApp } from '../lib/app';

createApp().app.synth();
