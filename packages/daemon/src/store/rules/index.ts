// The store's backend-neutral rules (ADR 0027), for the backends and their tests.
export { contentHash, normalizeContent } from './dedupe-key.js';
export { deletedVersion, isCurrent, nextVersion, notCurrentError, supersededVersion, updateContent } from './fact-versions.js';
export { checkImportRecords, type ImportRejection, planImport, storedCheckpointOf, storedFactOf } from './import-rules.js';
