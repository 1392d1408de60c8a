package arno.cache;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Turns keys and values into bytes for the disk tier and back. {@code decode(encode(v))} MUST
 * equal {@code v} for keys and be an equivalent value for values. Both MUST be thread-safe.
 * A failing {@code decode} marks the file corrupt: it is deleted and the lookup misses.
 */
public interface Codec<T> {

    byte[] encode(T value) throws IOException;

    T decode(byte[] bytes) throws IOException;

    /** Strings as UTF-8. */
    static Codec<String> utf8() {
        return new Codec<>() {
            @Override
            public byte[] encode(String value) {
                return value.getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public String decode(byte[] bytes) {
                return new String(bytes, StandardCharsets.UTF_8);
            }
        };
    }

    /** Byte arrays as themselves (the cache neither keeps nor changes the arrays it is given). */
    static Codec<byte[]> bytes() {
        return new Codec<>() {
            @Override
            public byte[] encode(byte[] value) {
                return value.clone();
            }

            @Override
            public byte[] decode(byte[] bytes) {
                return bytes;
            }
        };
    }
}
