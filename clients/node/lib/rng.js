// A small seeded random source for bots: the same seed gives the same choices, on every
// platform and Node version (Math.random cannot be seeded). sfc32, seeded by cyrb128 of
// the seed's text, both public-domain generators with 128 bits of state.

/** Hash a string into four 32-bit words (cyrb128). */
function cyrb128(text) {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

/** A seeded random source: random() in [0, 1), int(n) in [0, n), choice(array). */
export class Rng {
  /** @param {number|bigint|string|null|undefined} seed  null/undefined: seeded from the OS */
  constructor(seed) {
    const text = seed === null || seed === undefined ? String(Math.random()) : String(seed);
    [this.a, this.b, this.c, this.d] = cyrb128(text);
    for (let i = 0; i < 15; i++) this.next32(); // mix the state before the first use
  }

  /** The next 32-bit unsigned integer (sfc32). */
  next32() {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1). */
  random() {
    return this.next32() / 4294967296;
  }

  /** A uniform integer in [0, n), n <= 2^32, without modulo bias (rejection sampling). */
  int(n) {
    if (!(n >= 1 && n <= 4294967296)) throw new RangeError(`int(n) needs 1 <= n <= 2^32, got ${n}`);
    const limit = 4294967296 - (4294967296 % n);
    for (;;) {
      const x = this.next32();
      if (x < limit) return x % n;
    }
  }

  /** A uniformly chosen element of a non-empty array. */
  choice(items) {
    if (items.length === 0) throw new RangeError('choice() of an empty array');
    return items[this.int(items.length)];
  }
}
