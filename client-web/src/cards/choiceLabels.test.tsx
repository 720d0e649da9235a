/** A choice field of a form lists its options in words (the schema's titles), never raw values. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { argsSummary } from "./fields/schemaFields";
import { answerRows, answerSummary } from "./form/formAnswer";
import { SchemaForm } from "./SchemaForm";

function render(schema: Record<string, unknown>, formData: Record<string, unknown>) {
  return renderToStaticMarkup(
    <SchemaForm
      schema={schema}
      formData={formData}
      fieldErrors={[]}
      disabled={false}
      idPrefix="c"
      errorsLabel="Problems"
      onChange={() => {}}
      onSubmit={() => {}}
    >
      <button type="submit">Save</button>
    </SchemaForm>,
  );
}

const options = (html: string) => [...html.matchAll(/<option[^>]*>([^<]*)<\/option>/g)].map((m) => m[1]).filter(Boolean);

describe("a choice field's options", () => {
  it("humanises a plain enum's values", () => {
    const html = render({ type: "object", properties: { plan: { type: "string", enum: ["free", "pro_plus"] } } }, { plan: "free" });
    expect(options(html)).toEqual(["Free", "Pro plus"]);
  });

  it("uses oneOf const titles, and humanises a const without one", () => {
    const schema = {
      type: "object",
      properties: {
        plan: { type: "string", oneOf: [{ const: "free", title: "Free plan" }, { const: "pro" }] },
      },
    };
    expect(options(render(schema, { plan: "free" }))).toEqual(["Free plan", "Pro"]);
  });

  it("words the choices of a list of enum items and of nested objects", () => {
    const schema = {
      type: "object",
      properties: {
        account: { type: "object", properties: { tier: { type: "string", enum: ["basic_tier", "gold"] } } },
        tiers: { type: "array", items: { type: "string", enum: ["basic_tier", "gold"] } },
      },
    };
    const html = render(schema, { account: { tier: "gold" }, tiers: ["gold"] });
    expect(html).not.toMatch(/>basic_tier</);
    expect(html).not.toMatch(/>gold</);
    expect(html).toContain(">Basic tier<");
  });
});

describe("a chosen value on the card", () => {
  it("reads as the form listed it, in the answer's summary too", () => {
    const schema = {
      type: "object",
      properties: {
        plan: { type: "string", enum: ["free", "pro"] },
        size: { type: "string", oneOf: [{ const: "s", title: "Small" }, { const: "xl" }] },
        note: { type: "string" },
      },
    };
    expect(argsSummary(schema, { plan: "pro", size: "s", note: "pro" })).toBe("Plan: Pro · Size: Small · Note: pro");
    expect(argsSummary(schema, { size: "xl", plan: "other" })).toBe("Plan: other · Size: Xl");
  });
});

describe("an answered form's summary", () => {
  it("says a choice as the form listed it", () => {
    const schema = { type: "object", properties: { plan: { type: "string", title: "Plan", enum: ["free", "pro"] } } };
    expect(answerSummary(answerRows(schema, { plan: "pro" }))).toBe("Plan: Pro");
  });
});
