// The wording of a declined call's result (src/model/declined.ts): what the server stores, the web client reads back.
import { describe, expect, it } from "vitest";
import { declinedText, readDeclined } from "../../../src/model/declined";

describe("declinedText", () => {
  it("words a decline with its reason, trimmed, as stored results and the provider see it", () => {
    expect(declinedText("  too expensive ")).toBe("the user declined: too expensive");
  });

  it("stands in 'no reason given' for a missing or blank reason", () => {
    expect(declinedText(undefined)).toBe("the user declined: no reason given");
    expect(declinedText("   ")).toBe("the user declined: no reason given");
  });
});

describe("readDeclined", () => {
  it("reads back the reason declinedText wrote", () => {
    expect(readDeclined(declinedText("not today"))).toEqual({ reason: "not today" });
  });

  it("reads back no reason when none was given", () => {
    expect(readDeclined(declinedText(undefined))).toEqual({ reason: undefined });
  });

  it("answers null for any other result text", () => {
    expect(readDeclined("HTTP 500: upstream failed")).toBeNull();
  });
});
