// The store's backend-neutral rules (ADR 0027), for the backends and their tests.
export { contentHash } from './dedupe-key.js';
export { normalForm, tagKeys } from '../../search/normal-form.js';
export { deletedVersion, isCurrent, nextVersion, notCurrentError, supersededVersion, updateChange, changedContent, type Change } from './fact-versions.js';
export { checkImportRecords, type ImportRejection, planImport, storedCheckpointOf, storedFactOf } from './import-rules.js';
export { factFilter, passesFilter, type FilterParams } from './fact-filter.js';
export { factHistory } from './fact-history.js';
