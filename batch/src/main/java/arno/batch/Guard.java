package arno.batch;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.Where;
import java.time.Duration;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import net.sf.saxon.expr.Expression;
import net.sf.saxon.expr.UserFunctionCall;
import net.sf.saxon.expr.XPathContext;
import net.sf.saxon.expr.instruct.ApplyTemplates;
import net.sf.saxon.expr.instruct.CallTemplate;
import net.sf.saxon.expr.instruct.TraceExpression;
import net.sf.saxon.expr.instruct.WithParam;
import net.sf.saxon.expr.parser.CodeInjector;
import net.sf.saxon.expr.parser.ExpressionTool;
import net.sf.saxon.lib.TraceListener;
import net.sf.saxon.trace.Traceable;
import net.sf.saxon.trace.TraceableComponent;

/**
 * Stops a running transformation when its time limit has passed, its job is cancelled or the
 * service stops. Saxon-HE has no way to interrupt a transformation: it never checks
 * {@code Thread.interrupted()} (Saxon-HE 12.9 holds no call to it), its {@code Controller} has no
 * deadline, and {@code Thread.stop()} is gone from Java 20. What it has is tracing: a
 * {@link TraceListener} on the transformer is told when a traced expression is entered, and may
 * throw.
 *
 * <p>Tracing everything (Saxon's {@code -T}) would slow every instruction and, worse, wrap calls in
 * tail position so that they are no longer tail calls: a stylesheet that counts down a million
 * with a tail-recursive template overflows the stack when traced. So {@link #INJECTOR} traces only
 * where every loop of XSLT must pass and nothing else: the first parameter of a
 * {@code xsl:call-template}, the selection of a {@code xsl:apply-templates}, the first argument of
 * a user function call (all evaluated once per iteration, outside the call itself, which stays a
 * tail call). A call without parameters or arguments is wrapped itself: it loses tail-call
 * elimination, but a template or function that calls itself with nothing can only recurse for ever,
 * and then stops with Saxon's "too many nested calls" instead of looping. Measured on a
 * tail-recursive function called three million times: 0.9 s with the guard, 0.8 to 2.4 s without
 * (the two-core machine's noise was larger than the cost).
 *
 * <p>Not seen: a loop that never calls a template or a function, such as
 * {@code sum((1 to 2000000000) ! (. mod 7))}: XPath bounds such loops (2^31 items at most), and
 * the job's runner abandons a transformation that outlives its limit by {@link JobRun#ABANDON_AFTER}.
 *
 * <p>A time limit is an {@link ErrorCode#TRANSFORMATION_TIMEOUT} naming the input and the limit;
 * cancel and stop are a {@link Stopped}, which is not an {@code XPathException}, so a stylesheet's
 * {@code xsl:try} cannot catch either.
 *
 * <p>Page work first. The same checkpoints are where a running transformation gives way to waiting
 * page requests ({@link Yield}): a check costs one call to the server's {@link PagePressure} besides
 * the clock read, once per {@link #EVERY} entries.
 */
final class Guard implements TraceListener {
    /** Checks once in this many entries, and on the first: a clock read costs more than the entry. */
    private static final int EVERY = 256;

    static final CodeInjector INJECTOR = new CodeInjector() {
        @Override
        public Expression inject(Expression e) {
            if (e instanceof TraceExpression) return e;
            if (e instanceof CallTemplate call) {
                WithParam[] params = call.getActualParams();
                if (params.length == 0) return new TraceExpression(e);
                params[0].setSelectExpression(call, new TraceExpression(params[0].getSelectExpression()));
            } else if (e instanceof ApplyTemplates apply) {
                apply.setSelect(new TraceExpression(apply.getSelect()));
            } else if (e instanceof UserFunctionCall call) {
                if (call.getArity() == 0) return new TraceExpression(e);
                call.setArg(0, new TraceExpression(call.getArg(0)));
            }
            return e;
        }

        @Override
        public void process(TraceableComponent component) {
            // Only the calls inside: the component itself is not traced (that would end tail calls into it).
            component.setBody(ExpressionTool.injectCode(component.getBody(), this));
        }
    };

    /** Why a transformation was stopped other than by its time limit. */
    enum Reason { CANCELLED, STOPPING }

    /** Thrown out of the transformation when its job is cancelled or the service stops. */
    static final class Stopped extends RuntimeException {
        final Reason reason;

        Stopped(Reason reason) {
            super(reason == Reason.CANCELLED ? "the job was cancelled" : "the batch service is stopping", null, false, false);
            this.reason = reason;
        }
    }

    private long deadline;
    private final Duration limit;
    private final String input;
    private final BooleanSupplier cancelled;
    private final BooleanSupplier stopping;
    private final LongSupplier giveWay;
    private int entries;

    /**
     * A guard for one transformation of {@code input}, starting now. At each check it also offers
     * to give way to pages ({@code giveWay}, a {@link Yield.Turn#checkpoint}, returning the
     * nanoseconds it waited); time spent giving way does not count against the time limit.
     */
    Guard(Duration limit, String input, BooleanSupplier cancelled, BooleanSupplier stopping, LongSupplier giveWay) {
        this.limit = limit;
        this.deadline = System.nanoTime() + limit.toNanos();
        this.input = input;
        this.cancelled = cancelled;
        this.stopping = stopping;
        this.giveWay = giveWay;
    }

    /** Throws if the transformation must stop; also called between the steps of a transformation. */
    void check() {
        checkWithoutGivingWay();
        long waited = giveWay.getAsLong();
        if (waited > 0) {
            deadline += waited;
            checkWithoutGivingWay();
        }
    }

    /** As {@link #check} without giving way: once the result is made, waiting would only hold it in memory. */
    void checkWithoutGivingWay() {
        if (cancelled.getAsBoolean()) throw new Stopped(Reason.CANCELLED);
        if (stopping.getAsBoolean()) throw new Stopped(Reason.STOPPING);
        if (System.nanoTime() - deadline > 0) throw timeout(limit, input);
    }

    static ArnoException timeout(Duration limit, String input) {
        return ErrorCode.TRANSFORMATION_TIMEOUT.error(input, describe(limit))
                .at(Where.at(input));
    }

    static String describe(Duration d) {
        long s = d.toSeconds();
        if (d.toMillis() % 1000 != 0) return d.toMillis() + " ms";
        if (s % 3600 == 0) return s / 3600 + " h";
        if (s % 60 == 0) return s / 60 + " min";
        return s + " s";
    }

    @Override
    public void enter(Traceable traced, Map<String, Object> properties, XPathContext context) {
        if (entries++ % EVERY == 0) check();
    }
}
