package arno.store.query;

import java.util.List;

import net.sf.saxon.expr.Expression;
import net.sf.saxon.expr.Literal;
import net.sf.saxon.expr.Operand;
import net.sf.saxon.expr.OperandRole;
import net.sf.saxon.expr.RangeExpression;
import net.sf.saxon.expr.UserFunctionCall;
import net.sf.saxon.expr.XPathContext;
import net.sf.saxon.expr.flwor.Clause;
import net.sf.saxon.expr.flwor.FLWORExpression;
import net.sf.saxon.expr.flwor.ForClause;
import net.sf.saxon.expr.instruct.GlobalVariable;
import net.sf.saxon.expr.instruct.UserFunction;
import net.sf.saxon.expr.parser.CodeInjector;
import net.sf.saxon.expr.parser.ExpressionTool;
import net.sf.saxon.expr.parser.RebindingMap;
import net.sf.saxon.om.Item;
import net.sf.saxon.om.SequenceIterator;
import net.sf.saxon.query.XQueryExpression;
import net.sf.saxon.query.XQueryFunction;
import net.sf.saxon.trace.ExpressionPresenter;
import net.sf.saxon.trans.XPathException;
import net.sf.saxon.type.ItemType;

/**
 * Where a running query checks its limits when it neither reads a document nor writes a result.
 * Saxon-HE cannot interrupt a query: it never checks {@code Thread.interrupted()} and its
 * {@code Controller} has no deadline (the batch service's {@code Guard} meets the same wall in
 * XSLT). So {@link #install} wraps the places every long-running XQuery passes through in a
 * {@link Checkpoint} that ticks the run's {@link StoreQuery.Watch}:
 *
 * <ul>
 * <li>a range ({@code 1 to $n}, or the constant range the optimizer folded it into): each item,
 * so {@code sort(1 to 20000000)} is stopped while the sort collects its input, before it holds
 * twenty million items;
 * <li>the sequence of a {@code for} clause: each tuple (a join, an {@code order by} over a long
 * sequence);
 * <li>the first argument of a user function call: each call, so recursion is stopped. The call
 * itself stays a tail call; a call without arguments is wrapped whole (such a function returns
 * the same each time or recurses for ever).
 * </ul>
 *
 * Not seen: work inside one built-in function on one value (a regular expression that backtracks
 * exponentially, say); the console abandons such a run when it outlives its limit.
 *
 * <p>It runs on the compiled query, after Saxon's optimizer (so a checkpoint hides nothing from
 * it): the main expression, the global variables and the declared functions, whose evaluation
 * Saxon then works out again; evaluators Saxon makes at the first run see the checkpoints.
 */
final class Checkpoints implements CodeInjector {
    /** Constant sequences shorter than this are left alone: they end soon. */
    private static final int LONG = 1024;
    private static final Checkpoints INJECTOR = new Checkpoints();

    private Checkpoints() {
    }

    /** Puts the checkpoints into {@code query}, once, before its first run. */
    static void install(XQueryExpression query) {
        query.setBody(ExpressionTool.injectCode(query.getBody(), INJECTOR));
        for (GlobalVariable v : query.getPackageData().getGlobalVariableList()) {
            if (v.getBody() != null) {
                v.setBody(ExpressionTool.injectCode(v.getBody(), INJECTOR));
            }
        }
        for (XQueryFunction f : query.getMainModule().getGlobalFunctionLibrary().getFunctionDefinitions()) {
            UserFunction u = f.getUserFunction();
            if (u != null && u.getBody() != null) {
                u.setBody(ExpressionTool.injectCode(u.getBody(), INJECTOR));
                u.computeEvaluationMode();
            }
        }
    }

    @Override
    public Expression inject(Expression e) {
        if (e instanceof Checkpoint) {
            return e;
        }
        if (e instanceof RangeExpression || e instanceof Literal l && l.getGroundedValue().getLength() >= LONG) {
            return new Checkpoint(e);
        }
        if (e instanceof UserFunctionCall call) {
            if (call.getArity() == 0) {
                return new Checkpoint(e);
            }
            if (!(call.getArg(0) instanceof Checkpoint)) {
                call.setArg(0, new Checkpoint(call.getArg(0)));
                // Saxon chose how to evaluate the arguments when it compiled the call: again, with the checkpoint.
                if (call.getFunction() != null) {
                    call.allocateArgumentEvaluators();
                }
            }
        }
        return e;
    }

    /**
     * Saxon asks this after each clause for a clause to add behind it (a tracing clause): none is
     * added (null), the clause's own operands get their checkpoints.
     */
    @Override
    public Clause injectClause(FLWORExpression flwor, Clause clause) {
        try {
            clause.processOperands(o -> o.setChildExpression(ExpressionTool.injectCode(o.getChildExpression(), this)));
        } catch (XPathException e) {
            throw new IllegalStateException(e); // setting an operand raises nothing
        }
        if (clause instanceof ForClause f && !(f.getSequence() instanceof Checkpoint)) {
            f.setSequence(new Checkpoint(f.getSequence()));
        }
        return null;
    }

    /**
     * An expression that evaluates its child and ticks the run's watch once per evaluation and
     * once per item it yields. Transparent otherwise: same type, cardinality and properties.
     */
    static final class Checkpoint extends Expression {
        private final Operand child;

        Checkpoint(Expression child) {
            this.child = new Operand(this, child, OperandRole.SAME_FOCUS_ACTION);
            ExpressionTool.copyLocationInfo(child, this);
        }

        Expression child() {
            return child.getChildExpression();
        }

        @Override
        public Iterable<Operand> operands() {
            return List.of(child);
        }

        @Override
        public int getImplementationMethod() {
            return ITERATE_METHOD | (child().getImplementationMethod() & EVALUATE_METHOD);
        }

        @Override
        public ItemType getItemType() {
            return child().getItemType();
        }

        @Override
        protected int computeCardinality() {
            return child().getCardinality();
        }

        @Override
        protected int computeSpecialProperties() {
            return child().getSpecialProperties();
        }

        @Override
        public Expression copy(RebindingMap rebindings) {
            Checkpoint c = new Checkpoint(child().copy(rebindings));
            ExpressionTool.copyLocationInfo(this, c);
            return c;
        }

        @Override
        public String getExpressionName() {
            return "checkpoint";
        }

        @Override
        public void export(ExpressionPresenter out) throws XPathException {
            child().export(out);
        }

        @Override
        public Item evaluateItem(XPathContext context) throws XPathException {
            StoreQuery.Watch watch = StoreQuery.watch(context);
            if (watch != null) {
                watch.tick();
            }
            return child().evaluateItem(context);
        }

        @Override
        public SequenceIterator iterate(XPathContext context) throws XPathException {
            StoreQuery.Watch watch = StoreQuery.watch(context);
            SequenceIterator items = child().iterate(context);
            if (watch == null) {
                return items;
            }
            watch.tick();
            return new SequenceIterator() {
                @Override
                public Item next() {
                    watch.tick();
                    return items.next();
                }

                @Override
                public void close() {
                    items.close();
                }
            };
        }
    }
}
