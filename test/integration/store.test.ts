/** The store against DynamoDB Local, one table for both halves (./store/): imports and reads, corrupt records. */
import './store/import.ts';
import './store/corrupt.ts';
