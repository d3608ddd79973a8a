// The Porter (1980) stemmer, after Martin Porter's reference JavaScript version, with its regular expressions
// compiled once. Pure string code: no Node built-ins, no eval — safe inside workerd.
//
// Why not a package: `stemmer` (wooorm, ESM) and `wink-porter2-stemmer` (CJS) would both run in workerd, but the
// algorithm is ~100 lines, stable since 1980, and keeping it here avoids a runtime dependency for one function.

const STEP2: Record<string, string> = {
  ational: "ate",
  tional: "tion",
  enci: "ence",
  anci: "ance",
  izer: "ize",
  bli: "ble",
  alli: "al",
  entli: "ent",
  eli: "e",
  ousli: "ous",
  ization: "ize",
  ation: "ate",
  ator: "ate",
  alism: "al",
  iveness: "ive",
  fulness: "ful",
  ousness: "ous",
  aliti: "al",
  iviti: "ive",
  biliti: "ble",
  logi: "log",
};

const STEP3: Record<string, string> = {
  icate: "ic",
  ative: "",
  alize: "al",
  iciti: "ic",
  ical: "ic",
  ful: "",
  ness: "",
};

const c = "[^aeiou]"; // consonant
const v = "[aeiouy]"; // vowel
const C = `${c}[^aeiouy]*`; // consonant sequence
const V = `${v}[aeiou]*`; // vowel sequence

const MGR0 = new RegExp(`^(${C})?${V}${C}`); // [C]VC... is m>0
const MEQ1 = new RegExp(`^(${C})?${V}${C}(${V})?$`); // [C]VC[V] is m=1
const MGR1 = new RegExp(`^(${C})?${V}${C}${V}${C}`); // [C]VCVC... is m>1
const S_V = new RegExp(`^(${C})?${v}`); // vowel in stem
const CVC = new RegExp(`^${C}${v}[^aeiouwxy]$`);

const S1A_1 = /^(.+?)(ss|i)es$/;
const S1A_2 = /^(.+?)([^s])s$/;
const S1B_1 = /^(.+?)eed$/;
const S1B_2 = /^(.+?)(ed|ing)$/;
const S1B_AT = /(at|bl|iz)$/;
const S1B_DOUBLE = /([^aeiouylsz])\1$/;
const S1C = /^(.+?)y$/;
const S2 =
  /^(.+?)(ational|tional|enci|anci|izer|bli|alli|entli|eli|ousli|ization|ation|ator|alism|iveness|fulness|ousness|aliti|iviti|biliti|logi)$/;
const S3 = /^(.+?)(icate|ative|alize|iciti|ical|ful|ness)$/;
const S4 = /^(.+?)(al|ance|ence|er|ic|able|ible|ant|ement|ment|ent|ou|ism|ate|iti|ous|ive|ize)$/;
const S4_ION = /^(.+?)(s|t)(ion)$/;
const S5 = /^(.+?)e$/;

/** Porter-stems one lowercase word. Words shorter than 3 letters and words with digits are returned unchanged. */
export function porterStem(word: string): string {
  if (word.length < 3 || /[^a-z]/.test(word)) return word;
  let w = word;
  const firstY = w[0] === "y";
  if (firstY) w = `Y${w.slice(1)}`;

  // Step 1a
  let m = S1A_1.exec(w);
  if (m) w = m[1]! + m[2]!;
  else {
    m = S1A_2.exec(w);
    if (m) w = m[1]! + m[2]!;
  }

  // Step 1b
  m = S1B_1.exec(w);
  if (m) {
    if (MGR0.test(m[1]!)) w = w.slice(0, -1);
  } else {
    m = S1B_2.exec(w);
    if (m && S_V.test(m[1]!)) {
      w = m[1]!;
      if (S1B_AT.test(w)) w += "e";
      else if (S1B_DOUBLE.test(w)) w = w.slice(0, -1);
      else if (CVC.test(w)) w += "e";
    }
  }

  // Step 1c
  m = S1C.exec(w);
  if (m && S_V.test(m[1]!)) w = `${m[1]!}i`;

  // Step 2
  m = S2.exec(w);
  if (m && MGR0.test(m[1]!)) w = m[1]! + STEP2[m[2]!]!;

  // Step 3
  m = S3.exec(w);
  if (m && MGR0.test(m[1]!)) w = m[1]! + STEP3[m[2]!]!;

  // Step 4
  m = S4.exec(w);
  if (m) {
    if (MGR1.test(m[1]!)) w = m[1]!;
  } else {
    m = S4_ION.exec(w);
    if (m && MGR1.test(m[1]! + m[2]!)) w = m[1]! + m[2]!;
  }

  // Step 5
  m = S5.exec(w);
  if (m) {
    const stem = m[1]!;
    if (MGR1.test(stem) || (MEQ1.test(stem) && !CVC.test(stem))) w = stem;
  }
  if (w.endsWith("ll") && MGR1.test(w)) w = w.slice(0, -1);

  if (firstY) w = `y${w.slice(1)}`;
  return w;
}

const cache = new Map<string, string>();
const CACHE_LIMIT = 50_000;

/** `porterStem` with a bounded memo (catalog words repeat a lot). */
export function stem(word: string): string {
  let s = cache.get(word);
  if (s === undefined) {
    s = porterStem(word);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(word, s);
  }
  return s;
}
