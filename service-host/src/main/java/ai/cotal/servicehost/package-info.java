/**
 * The public contract of the service-endpoint operations (register admission, decide, revoke,
 * name-bind, caller policy, reads): typed requests, results and views, their closed JSON parsers
 * and writers, and a client for the {@code POST /service-endpoint-host} route. See SPEC.md §13.
 */
package ai.cotal.servicehost;
