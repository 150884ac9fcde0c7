// CPython's random.Random (Mersenne Twister MT19937), exactly, for the parts the server's bots use.
//
// The bots (api/bots) draw every random choice from a `random.Random` seeded with a big integer
// (api/bots/actions.py make_rng; the expert's playouts with a 64-bit one). Re-running a bot
// decision means drawing the same numbers in the same order, so this follows CPython 3.11's
// Modules/_randommodule.c and Lib/random.py call for call: seeding (init_by_array over the
// integer's 32-bit little-endian words), getrandbits, random() (53 bits), _randbelow (rejection
// over getrandbits(n.bit_length())), choice and shuffle. Any drift here shows up as a bot move
// the replayer calls wrong, so tests/clients/test_js_pyrandom.py compares it with Python's own.

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;

/** The 32-bit words of a non-negative integer, least significant first (at least one word). */
function wordsOf(n) {
  let big = BigInt(n);
  if (big < 0n) big = -big; // CPython seeds with abs(n)
  const words = [];
  while (big > 0n) {
    words.push(Number(big & 0xffffffffn));
    big >>= 32n;
  }
  return words.length ? words : [0];
}

export class PyRandom {
  /** `new PyRandom(seed)`: as `random.Random(seed)` for a non-negative int (a BigInt, a Number
   *  that is a safe integer, or a decimal string of one). */
  constructor(seed) {
    this.mt = new Uint32Array(N);
    this.mti = N + 1;
    this.initByArray(wordsOf(typeof seed === "string" ? BigInt(seed) : seed));
  }

  initGenrand(s) {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.mti = N;
  }

  initByArray(key) {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    const length = key.length;
    for (let k = N > length ? N : length; k; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0; // non-linear
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= length) j = 0;
    }
    for (let k = N - 1; k; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0; // non-linear
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000; // MSB is 1, assuring a non-zero initial array
  }

  /** genrand_uint32: the next 32 random bits, as a non-negative Number. */
  uint32() {
    const mt = this.mt;
    if (this.mti >= N) {
      let kk = 0;
      for (; kk < N - M; kk++) {
        const y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
        mt[kk] = mt[kk + M] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      for (; kk < N - 1; kk++) {
        const y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
        mt[kk] = mt[kk + (M - N)] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      const y = (mt[N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
      mt[N - 1] = mt[M - 1] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      this.mti = 0;
    }
    let y = mt[this.mti++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** random(): a float in [0, 1) from 53 random bits (genrand_res53). */
  random() {
    const a = this.uint32() >>> 5;
    const b = this.uint32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  /** getrandbits(k) as a Number for k <= 32 (what _randbelow needs, fast). */
  bits32(k) {
    if (k === 0) return 0;
    return this.uint32() >>> (32 - k);
  }

  /** getrandbits(k) as a BigInt, any k >= 0: words least significant first, the last one cut. */
  getrandbits(k) {
    if (k < 0) throw new RangeError("number of bits must be non-negative");
    if (k <= 32) return BigInt(this.bits32(k));
    let out = 0n;
    let shift = 0n;
    for (let left = k; left > 0; left -= 32) {
      let r = this.uint32();
      if (left < 32) r >>>= 32 - left;
      out |= BigInt(r) << shift;
      shift += 32n;
    }
    return out;
  }

  /** _randbelow(n) for 0 < n < 2**32 (CPython 3.11 _randbelow_with_getrandbits). */
  randbelow(n) {
    const k = 32 - Math.clz32(n); // n.bit_length()
    let r = this.bits32(k);
    while (r >= n) r = this.bits32(k);
    return r;
  }

  choice(seq) {
    if (!seq.length) throw new RangeError("Cannot choose from an empty sequence");
    return seq[this.randbelow(seq.length)];
  }

  /** shuffle(x) in place: for i from len-1 down to 1, swap x[i] with x[_randbelow(i + 1)]. */
  shuffle(x) {
    for (let i = x.length - 1; i > 0; i--) {
      const j = this.randbelow(i + 1);
      const t = x[i];
      x[i] = x[j];
      x[j] = t;
    }
  }
}
