package arno.http;

import arno.xml.Accounts;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The one check of credentials, roles and throttling, in front of every servlet that needs
 * accounts (the store API, the batch service, the metrics, the console), configured per mount:
 * a realm, how refusals are answered, and rules saying which requests are open and which need an
 * account with which role.
 *
 * <p>Contract. For each request the first rule that matches decides; when none does, the request
 * is refused (403): a mount is closed unless a rule opens it. An open request MUST reach the
 * servlet with no account. A request that needs a role:
 * <ul>
 * <li>MUST be checked once, through {@link Accounts#check} (HTTP Basic; throttled per name and
 * address and per address; hashed off the request thread);</li>
 * <li>without valid credentials MUST be answered 401 with {@code WWW-Authenticate: Basic
 * realm="REALM", charset="UTF-8"}; without credentials at all, with the rule's sentence when it
 * has one; throttled (429) or busy (503) with {@code Retry-After};</li>
 * <li>with an account that lacks the role MUST be answered 403 naming the account, the role and
 * the method;</li>
 * <li>MAY then reach the servlet, with the account on the request ({@link #account}) for the
 * servlet's own finer checks (the store's admin-only deletes).</li>
 * </ul>
 * Every refusal is written by the mount's {@link Answer} (an {@code err:error} document, the
 * console's HTML page), after the filter has set WWW-Authenticate and Retry-After. A servlet
 * behind it checks {@link #admitted} and refuses to answer when the filter was not mounted
 * ({@link Endpoint} mounts both together).
 *
 * <p>Thread-safe and immutable once built; one per mount.
 */
public final class AuthFilter extends HttpFilter {
    private static final long serialVersionUID = 1L;
    /** The request attribute holding the {@link Accounts.Account} that was admitted. */
    public static final String ACCOUNT = "arno.http.account";
    /** Set on every request the filter let through, open or not. */
    private static final String ADMITTED = "arno.http.admitted";

    /** How a mount answers a refusal: status, headers and body of {@code e} (its status is {@code e.status()}). */
    @FunctionalInterface
    public interface Answer {
        void refuse(HttpServletRequest req, HttpServletResponse resp, ArnoException e) throws IOException;
    }

    /** A rule: the requests it matches; the role they need (null: open); what a request without credentials is told. */
    private record Rule(Predicate<HttpServletRequest> matches, Accounts.Role role, ErrorMessage unauthorized, Object[] values) {}

    private final transient Accounts accounts;
    private final String challenge;
    private final transient Answer answer;
    private final transient List<Rule> rules;
    private final ErrorMessage forbidden;

    private AuthFilter(Builder b) {
        this.accounts = b.accounts;
        this.challenge = "Basic realm=\"" + b.realm + "\", charset=\"UTF-8\"";
        this.answer = b.answer;
        this.rules = List.copyOf(b.rules);
        this.forbidden = b.forbidden;
    }

    /**
     * A filter checking against {@code accounts}, challenging for {@code realm} ("arno-store"),
     * answering refusals with {@code answer}. Add rules in the order they are tried.
     */
    public static Builder builder(Accounts accounts, String realm, Answer answer) {
        return new Builder(accounts, realm, answer);
    }

    /** The account the filter admitted this request with; null for an open request. */
    public static Accounts.Account account(HttpServletRequest req) {
        return req.getAttribute(ACCOUNT) instanceof Accounts.Account a ? a : null;
    }

    /** Whether an AuthFilter let this request through (open or with an account). */
    public static boolean admitted(HttpServletRequest req) {
        return Boolean.TRUE.equals(req.getAttribute(ADMITTED));
    }

    /** Requests with one of {@code methods}. */
    public static Predicate<HttpServletRequest> methods(String... methods) {
        Set<String> set = Set.of(methods);
        return req -> set.contains(req.getMethod());
    }

    /** Requests whose path inside the mount ({@code getPathInfo()}, "" for none) is one of {@code paths}. */
    public static Predicate<HttpServletRequest> paths(String... paths) {
        Set<String> set = Set.of(paths);
        return req -> set.contains(req.getPathInfo() == null ? "" : req.getPathInfo());
    }

    /** Every request. */
    public static Predicate<HttpServletRequest> any() {
        return req -> true;
    }

    @Override
    protected void doFilter(HttpServletRequest req, HttpServletResponse resp, FilterChain chain)
            throws IOException, ServletException {
        Rule rule = null;
        for (Rule r : rules) {
            if (r.matches().test(req)) {
                rule = r;
                break;
            }
        }
        if (rule == null) {
            refuse(req, resp, ErrorMessage.NOT_OPEN.error(req.getMethod(), req.getRequestURI()));
            return;
        }
        if (rule.role() != null) {
            String header = req.getHeader("Authorization");
            Accounts.Account account;
            try {
                account = accounts.check(header, req.getRemoteAddr());
            } catch (Accounts.Refusal e) {
                if (e.retryAfterSeconds() > 0) resp.setHeader("Retry-After", Long.toString(e.retryAfterSeconds()));
                boolean bare = e.code() == ErrorCode.UNAUTHORIZED && header == null && rule.unauthorized() != null;
                refuse(req, resp, bare ? rule.unauthorized().error(rule.values()) : e);
                return;
            } catch (ArnoException e) {
                refuse(req, resp, e); // a malformed accounts file: the operator's to fix, said as the mount says errors
                return;
            }
            if (!account.has(rule.role())) {
                refuse(req, resp, forbidden.error(account.name(), rule.role().token(), req.getMethod()));
                return;
            }
            req.setAttribute(ACCOUNT, account);
        }
        req.setAttribute(ADMITTED, Boolean.TRUE);
        chain.doFilter(req, resp);
    }

    private void refuse(HttpServletRequest req, HttpServletResponse resp, ArnoException e) throws IOException {
        if (e.code() == ErrorCode.UNAUTHORIZED) resp.setHeader("WWW-Authenticate", challenge);
        answer.refuse(req, resp, e);
    }

    /** Rules in the order they are tried, then {@link #build}. */
    public static final class Builder {
        private final Accounts accounts;
        private final String realm;
        private final Answer answer;
        private final List<Rule> rules = new ArrayList<>();
        private ErrorMessage forbidden = ErrorMessage.ROLE_FOR_METHOD;

        private Builder(Accounts accounts, String realm, Answer answer) {
            this.accounts = Objects.requireNonNull(accounts, "accounts");
            if (!realm.matches("[A-Za-z0-9._-]+")) throw new IllegalArgumentException("a realm is a plain name: " + realm);
            this.realm = realm;
            this.answer = Objects.requireNonNull(answer, "answer");
        }

        /** The requests that need no account. */
        public Builder open(Predicate<HttpServletRequest> requests) {
            rules.add(new Rule(requests, null, null, new Object[0]));
            return this;
        }

        /**
         * The requests that need an account with {@code role}; {@code unauthorized} with its
         * {@code values} is what a request without credentials is told (null: what
         * {@link Accounts#check} says).
         */
        public Builder require(Predicate<HttpServletRequest> requests, Accounts.Role role, ErrorMessage unauthorized,
                Object... values) {
            if (unauthorized != null && unauthorized.code() != ErrorCode.UNAUTHORIZED) {
                throw new IllegalArgumentException(unauthorized + " is not an unauthorized message");
            }
            rules.add(new Rule(requests, Objects.requireNonNull(role, "role"), unauthorized, values.clone()));
            return this;
        }

        /**
         * What a 403 says: a forbidden message whose values are the account, the role it lacks and
         * the method (default {@link ErrorMessage#ROLE_FOR_METHOD}).
         */
        public Builder forbidden(ErrorMessage message) {
            if (message.code() != ErrorCode.FORBIDDEN || message.arity() != 3) {
                throw new IllegalArgumentException(message + " is not a forbidden message of account, role and method");
            }
            this.forbidden = message;
            return this;
        }

        public AuthFilter build() {
            return new AuthFilter(this);
        }
    }
}
