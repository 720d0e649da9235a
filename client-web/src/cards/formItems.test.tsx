/** List items of an edit form read "Tag 1", "Tag 2", with the required mark once, and name their inputs. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { SchemaForm } from "./SchemaForm";
import { itemLabel, singular } from "./formItems";

function form(schema: Record<string, unknown>, formData: Record<string, unknown>): string {
  return renderToStaticMarkup(
    <SchemaForm schema={schema} formData={formData} fieldErrors={[]} disabled={false} idPrefix="e" errorsLabel="Problems" onChange={() => {}} onSubmit={() => {}}>
      <button type="submit">Save</button>
    </SchemaForm>,
  );
}

/** Each <label for=...> with its text (tags stripped), in order. */
function labels(html: string): Array<{ for: string; text: string }> {
  return [...html.matchAll(/<label[^>]*for="([^"]+)"[^>]*>(.*?)<\/label>/g)].map((m) => ({ for: m[1], text: m[2].replace(/<[^>]+>/g, "") }));
}

describe("list items in an edit form", () => {
  it("read as the person expects: “Tag 1”, “Tag 2”, never “Tags-1*”", () => {
    const schema = { type: "object", properties: { tags: { type: "array", items: { type: "string" } } }, required: ["tags"] };
    const html = form(schema, { tags: ["sale", "spring"] });

    const items = labels(html).filter((l) => l.text.startsWith("Tag "));
    expect(items.map((l) => l.text)).toEqual(["Tag 1", "Tag 2"]);
    expect(html).not.toMatch(/Tags-\d/);
    // The required mark once, on the list's own title; none on its items.
    expect(html.match(/class="required"/g)).toHaveLength(1);
    // Each item's label names its input: the accessible name is "Tag 1".
    for (const label of items) expect(html).toMatch(new RegExp(`<input[^>]*id="${label.for}"`));
  });

  it("uses the items' own title when the schema gives one, and a plain number otherwise", () => {
    const titled = { type: "object", properties: { people: { type: "array", title: "Attendees", items: { type: "string", title: "Guest" } } } };
    expect(labels(form(titled, { people: ["Ada"] })).map((l) => l.text)).toContain("Guest 1");
    const objects = { type: "object", properties: { stops: { type: "array", items: { type: "object", properties: { city: { type: "string" } } } } } };
    const html = form(objects, { stops: [{ city: "Rome" }] });
    expect(html).toContain("Stop 1");
    expect(html).not.toMatch(/Stops-1|\*/);
    expect(labels(html).map((l) => l.text)).toEqual(["City"]);
  });

  it("words labels from plurals and other titles", () => {
    expect(["Tags", "Categories", "Boxes", "Addresses", "Status", "Attendee list", "Data"].map(singular)).toEqual([
      "Tag",
      "Category",
      "Box",
      "Address",
      "Status",
      "Attendee list",
      "Data",
    ]);
    expect(itemLabel("Tags", 0)).toBe("Tag 1");
    expect(itemLabel("Attendee list", 2)).toBe("Attendee list item 3");
    expect(itemLabel("", 1)).toBe("Item 2");
  });
});
