/**
 * The HTTP edge every part shares: {@link arno.http.AuthFilter} (credentials, roles, throttling),
 * {@link arno.http.Endpoint} (a servlet mounted with its filters), {@link arno.http.Conditional}
 * (conditional requests) and {@link arno.http.HeaderValues} (the one header parser).
 *
 * <p>Thread rules: everything here is immutable once built and safe to share between request
 * threads; a filter holds no state of its own between requests (the throttle and the remembered
 * logins are the {@link arno.xml.Accounts}'). What the filter learns of a request travels on the
 * request (its attributes), never in a thread-local.
 */
package arno.http;
