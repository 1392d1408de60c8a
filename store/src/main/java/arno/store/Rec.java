package arno.store;

/**
 * Decodes one record header of a {@link StoredTree} into fields. Reused by an iterator for every
 * record it passes (the iterators extend it), so a scan allocates only the nodes it returns. Not
 * thread-safe.
 *
 * <p>All reads of a header come from the chunk its tag is in: the chunk's 64-byte overlap with
 * the next one covers the longest header (see {@link Format} and {@link Cursor}).
 */
class Rec extends Cursor {

    long pos;
    int tag;
    int kind;
    /** Name code (element, PI), else -1. */
    int code;
    /** Position of the parent record; -1 for the document. */
    long parent;
    /** Element, document: first child, or for a leaf element the end of its header. Others: end. */
    long first;
    /** Position just after the whole subtree: the next sibling or the parent's END. */
    long end;
    /** Element: index of its namespace map, -1 if none in scope. */
    int ns;
    /** Element: byte length of the attribute entries, which end at {@link #first}. */
    int attrBytes;
    /** Text, comment, PI: byte length of the UTF-8 content (ending at {@link #end}), and whether it is ASCII. */
    int length;
    boolean ascii;

    Rec(StoredTree t) {
        super(t);
    }

    /** Decodes the record at {@code p}. */
    void read(long p) {
        pos = p;
        int tg = at(p);
        long base = p - (p & Format.CHUNK_MASK);
        tag = tg;
        int k = tg & Format.KIND_MASK;
        kind = k;
        switch (k) {
            case Format.ELEMENT -> {
                code = varint();
                parent = p - varlong();
                int size = -1;
                if ((tg & Format.F_CHILDREN) != 0) {
                    size = u16();
                }
                ns = (tg & Format.F_NS) != 0 ? varint() : -1;
                attrBytes = (tg & Format.F_ATTRS) != 0 ? varint() : 0;
                first = base + o + attrBytes;
                end = size < 0 ? first : size == Format.BIG ? p + t.bigSize(p) : p + size;
            }
            case Format.TEXT, Format.COMMENT -> {
                code = -1;
                textTail(p, tg, base);
            }
            case Format.PI -> {
                code = varint();
                textTail(p, tg, base);
            }
            case Format.DOCUMENT -> {
                code = -1;
                parent = -1;
                ns = -1;
                int size = u16();
                attrBytes = 0;
                first = base + o;
                end = size == Format.BIG ? p + t.bigSize(p) : p + size;
            }
            case Format.END -> {
                code = -1;
                first = p + 1;
                end = p + 1;
            }
            default -> throw t.corrupt(p, "unknown record tag " + tg);
        }
    }

    private void textTail(long p, int tg, long base) {
        long pa = varlong();
        parent = p - (pa >>> 1);
        ascii = (pa & 1) != 0;
        int l = tg >>> 3;
        if (l == Format.LENGTH_FOLLOWS) {
            l = varint();
        }
        length = l;
        first = base + o + l;
        end = first;
    }

    /** Element: start of the attribute entries. */
    long attrs() {
        return first - attrBytes;
    }

    /** Text, comment, PI: start of the content. */
    long content() {
        return end - length;
    }

    boolean hasChildren() {
        return (tag & Format.F_CHILDREN) != 0;
    }

}
