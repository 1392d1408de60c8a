package arno.demo;

import java.util.List;

/**
 * SplitMix64 (Steele, Lea and Flood, OOPSLA 2014), written out rather than taken from
 * {@link java.util.SplittableRandom} so that a seed yields the same content on every JDK for as
 * long as golden pages depend on it. Each article gets its own stream derived from (seed, journal,
 * article number), which makes articles independent of each other: they can be generated in
 * parallel, and changing N does not change the articles that both runs contain.
 */
final class Rnd {
  private long state;

  Rnd(long seed) {
    this.state = seed;
  }

  /** A stream for one entity, mixed so that neighbouring keys give unrelated streams. */
  static Rnd of(long seed, long... keys) {
    long s = mix(seed ^ 0x5DEECE66DL);
    for (long k : keys) {
      s = mix(s + 0x9E3779B97F4A7C15L * (k + 1));
    }
    return new Rnd(s);
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  long nextLong() {
    state += 0x9E3779B97F4A7C15L;
    return mix(state);
  }

  /** Uniform in [0, bound), by Lemire's multiply-shift with rejection of the biased low range. */
  int below(int bound) {
    long m = (nextLong() >>> 32) * bound;
    long low = m & 0xFFFFFFFFL;
    if (low < bound) {
      long threshold = (0x1_0000_0000L - bound) % bound;
      while (low < threshold) {
        m = (nextLong() >>> 32) * bound;
        low = m & 0xFFFFFFFFL;
      }
    }
    return (int) (m >>> 32);
  }

  /** Uniform in [lo, hi], both inclusive. */
  int between(int lo, int hi) {
    return lo + below(hi - lo + 1);
  }

  double unit() {
    return (nextLong() >>> 11) * 0x1.0p-53;
  }

  boolean chance(double p) {
    return unit() < p;
  }

  <T> T pick(T[] items) {
    return items[below(items.length)];
  }

  <T> T pick(List<T> items) {
    return items.get(below(items.size()));
  }
}
