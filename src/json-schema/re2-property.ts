/**
 * A Unicode property escape's body (`\p{…}`, in ECMA-262's names) as RE2 names it (`re2Property`): General_Category
 * values by any of their ECMA names, `Script=`/`sc=` with a script's full name, and the binary properties both
 * have; `Script_Extensions` and the properties RE2 lacks are refused, naming why.
 */

/** General_Category values under each of their ECMA names (long, short, and the few extra aliases), as RE2 names them. */
const CATEGORIES: ReadonlyMap<string, string> = new Map(
  [
    ["C", "Other"],
    ["Cc", "Control", "cntrl"],
    ["Cf", "Format"],
    ["Cn", "Unassigned"],
    ["Co", "Private_Use"],
    ["Cs", "Surrogate"],
    ["L", "Letter"],
    ["LC", "Cased_Letter"],
    ["Ll", "Lowercase_Letter"],
    ["Lm", "Modifier_Letter"],
    ["Lo", "Other_Letter"],
    ["Lt", "Titlecase_Letter"],
    ["Lu", "Uppercase_Letter"],
    ["M", "Mark", "Combining_Mark"],
    ["Mc", "Spacing_Mark"],
    ["Me", "Enclosing_Mark"],
    ["Mn", "Nonspacing_Mark"],
    ["N", "Number"],
    ["Nd", "Decimal_Number", "digit"],
    ["Nl", "Letter_Number"],
    ["No", "Other_Number"],
    ["P", "Punctuation", "punct"],
    ["Pc", "Connector_Punctuation"],
    ["Pd", "Dash_Punctuation"],
    ["Pe", "Close_Punctuation"],
    ["Pf", "Final_Punctuation"],
    ["Pi", "Initial_Punctuation"],
    ["Po", "Other_Punctuation"],
    ["Ps", "Open_Punctuation"],
    ["S", "Symbol"],
    ["Sc", "Currency_Symbol"],
    ["Sk", "Modifier_Symbol"],
    ["Sm", "Math_Symbol"],
    ["So", "Other_Symbol"],
    ["Z", "Separator"],
    ["Zl", "Line_Separator"],
    ["Zp", "Paragraph_Separator"],
    ["Zs", "Space_Separator"],
  ].flatMap((names) => names.map((name): [string, string] => [name, names[0] as string])),
);

/** The binary properties both ECMA and RE2 have: RE2's name, then every ECMA name of it. */
const BINARY: ReadonlyMap<string, string> = new Map(
  [
    ["Ascii", "ASCII"],
    ["Any", "Any"],
    ["Assigned", "Assigned"],
    ["ASCII_Hex_Digit", "ASCII_Hex_Digit", "AHex"],
    ["Alphabetic", "Alphabetic", "Alpha"],
    ["Dash", "Dash"],
    ["Emoji", "Emoji"],
    ["Emoji_Component", "Emoji_Component", "EComp"],
    ["Emoji_Modifier", "Emoji_Modifier", "EMod"],
    ["Emoji_Modifier_Base", "Emoji_Modifier_Base", "EBase"],
    ["Emoji_Presentation", "Emoji_Presentation", "EPres"],
    ["Extended_Pictographic", "Extended_Pictographic", "ExtPict"],
    ["Hex_Digit", "Hex_Digit", "Hex"],
    ["Lowercase", "Lowercase", "Lower"],
    ["Math", "Math"],
    ["Quotation_Mark", "Quotation_Mark", "QMark"],
    ["Terminal_Punctuation", "Terminal_Punctuation", "Term"],
    ["Uppercase", "Uppercase", "Upper"],
    ["White_Space", "White_Space", "space"],
  ].flatMap(([re2, ...names]) => names.map((name): [string, string] => [name, re2 as string])),
);

/** The RE2 name of a `\p{…}` body (what its braces hold), or why RE2 has none. */
export function re2Property(body: string): { ok: true; name: string } | { ok: false; reason: string } {
  const eq = body.indexOf("=");
  if (eq === -1) {
    const name = CATEGORIES.get(body) ?? BINARY.get(body);
    if (name === undefined) {
      return { ok: false, reason: `uses \\p{${body}}, a Unicode property the linear-time regex engine does not have` };
    }
    return { ok: true, name };
  }
  const key = body.slice(0, eq);
  const value = body.slice(eq + 1);
  if (key === "General_Category" || key === "gc") return { ok: true, name: CATEGORIES.get(value) ?? value };
  if (key === "Script" || key === "sc") return { ok: true, name: value };
  return {
    ok: false,
    reason: `uses \\p{${body}}: the linear-time regex engine has no Script_Extensions (use Script=)`,
  };
}
