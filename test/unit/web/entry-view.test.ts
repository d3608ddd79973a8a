// The web client's transcript entry as it renders (react-dom/server, no browser): the approval prompt's reason field.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { expect, it } from "vitest";
import { type Answer, EntryView } from "../../../web/src/entry-view.tsx";
import type { Entry } from "../../../web/src/transcript.ts";
import type { TypedReasons } from "../../../web/src/typed-reasons.ts";

/** An entry asking the person to approve `charge_card` (approval `apr_<id>`). */
function asking(id: string): Entry {
  return {
    id: `msg_${id}`,
    role: "assistant",
    blocks: [
      {
        kind: "tool",
        id: `call_${id}`,
        name: "charge_card",
        state: "approval",
        input: { amount: 5 },
        output: "",
        approval: { id: `apr_${id}`, reason: "needs approval" },
      },
    ],
  };
}

const answer: Answer = () => {};

/** The reason field of the prompt `entry` renders with the chat's `typed` reasons. */
function reasonField(entry: Entry, typed: ReadonlyMap<string, string>): string {
  const reasons: TypedReasons = { byId: typed, type: () => {} };
  const html = renderToStaticMarkup(createElement(EntryView, { entry, answer, reasons }));
  return /<input[^>]*aria-label="Reason for charge_card"[^>]*>/.exec(html)?.[0] ?? "";
}

it("shows an approval opened again after a failed answer with the reason the person typed before", () => {
  const field = reasonField(asking("ev1"), new Map([["apr_ev1", "over budget"]]));
  expect(field).toContain('value="over budget"');
});

it("takes no longer a reason than the server does (2,000 characters)", () => {
  expect(reasonField(asking("ev2"), new Map())).toContain('maxLength="2000"');
});
