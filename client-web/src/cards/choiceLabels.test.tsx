/** A choice field of a form lists its options in words (the schema's titles), never raw values. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
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
