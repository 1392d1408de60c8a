package arno.pipeline;

import net.sf.saxon.s9api.Location;

/**
 * A request failure from the catalogue, with where it happened when known:
 * the stylesheet or query (module), line and column, the error code, and the
 * pipeline stage.
 */
public final class PipelineException extends Exception {
    private final Failure failure;
    private String code;
    private String module;
    private int line = -1;
    private int column = -1;
    private int stage = -1;
    private String route;

    public PipelineException(Failure failure, Throwable cause, Object... args) {
        super(failure.format(args), cause);
        this.failure = failure;
    }

    public PipelineException(Failure failure, Object... args) {
        this(failure, null, args);
    }

    PipelineException at(Location location) {
        if (location != null) {
            module = location.getSystemId();
            line = location.getLineNumber();
            column = location.getColumnNumber();
        }
        return this;
    }

    PipelineException at(String module, int line, int column) {
        this.module = module;
        this.line = line;
        this.column = column;
        return this;
    }

    PipelineException code(String code) {
        this.code = code;
        return this;
    }

    PipelineException stage(String route, int stage) {
        this.route = route;
        this.stage = stage;
        return this;
    }

    public Failure failure() { return failure; }
    public int status() { return failure.status; }
    public String code() { return code; }
    public String module() { return module; }
    public int line() { return line; }
    public int column() { return column; }
    public int stage() { return stage; }
    public String route() { return route; }

    /** "file.xsl line 12 column 5", or "" when the location is unknown. */
    public String where() {
        if (module == null) return "";
        StringBuilder b = new StringBuilder(module);
        if (line > 0) b.append(" line ").append(line);
        if (column > 0) b.append(" column ").append(column);
        return b.toString();
    }
}
