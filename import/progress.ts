/** How far an import has got: what the workflow tells, locally or in a stage, and its upload. */
export interface Progress {
  /**
   * `uploading` the file (`bytes`), `starting` while no execution of the stage's workflow has
   * been seen for it yet, then the workflow's own phases.
   */
  phase: 'uploading' | 'starting' | 'planning' | 'checking' | 'writing' | 'reporting';
  parts: number;
  partsDone: number;
  /** Records (and deletes) checked while checking, written while writing. */
  records: number;
  /** While writing: the file's records (and deletes), all checked. */
  total?: number;
  /** While uploading: bytes S3 has acknowledged, of the file's size. */
  bytes?: { sent: number; total: number };
}
