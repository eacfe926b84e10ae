/**
 * The records a manager and a run's caller write into a space's stores, in their one canonical
 * form: {@link ai.cotal.auth.records.ManagerRecords} (a manager's service spec, status and contract
 * artifacts, with their keys and digests) and {@link ai.cotal.auth.records.RunRecords} (run
 * requests and their keys). Stateless builders; every one refuses bad input with
 * {@code bad-request} naming the field.
 */
package ai.cotal.auth.records;
