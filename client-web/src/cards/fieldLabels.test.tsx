/** Form labels and error paths read in the person's words, never as raw schema keys. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { pathWords } from "./approval/fieldErrors";
import { SchemaForm, fieldTitles } from "./SchemaForm";

const schema = {
  type: "object",
  properties: {
    text: { type: "string" },
    due_date: { type: "string", title: "When it is due" },
    contact: { type: "object", properties: { phoneNumber: { type: "string" } } },
  },
  required: ["text"],
};

describe("the edit form's labels", () => {
  it("gives untitled properties the card's label at every level, keeping schema titles", () => {
    const ui = fieldTitles(schema, { text: { "ui:widget": "textarea" } });
    expect(ui.text).toEqual({ "ui:widget": "textarea", "ui:title": "Text" });
    expect(ui.due_date).toEqual({});
    expect((ui.contact as Record<string, unknown>)["ui:title"]).toBe("Contact");
    expect((ui.contact as Record<string, Record<string, unknown>>).phoneNumber["ui:title"]).toBe("Phone number");
    expect(fieldTitles({ type: "object", properties: { id: { type: "integer" } } }).id).toEqual({ "ui:title": "ID" });
  });

  it("renders the labels and the server's field errors in words", () => {
    const out = renderToStaticMarkup(
      <SchemaForm
        schema={schema}
        formData={{ text: "buy milk" }}
        fieldErrors={[{ path: ["text"], message: "Must not be only spaces.", rule: "pattern" }]}
        disabled={false}
        idPrefix="t"
        errorsLabel="Problems"
        onChange={() => {}}
        onSubmit={() => {}}
      >
        <button type="submit">Save</button>
      </SchemaForm>,
    );
    expect(out).toContain(">Text<");
    expect(out).toContain("When it is due");
    expect(out).not.toMatch(/>text\*?</);
    expect(out).toContain('data-path="text"');
    expect(out).toContain("<strong>Text</strong>: Must not be only spaces.");
    expect(pathWords(["items", 0, "unit_price"])).toBe("Item 1 › Unit price");
    expect(pathWords([])).toBe("The details");
  });

  it("names an error's field by the schema's title, as the form labels it", () => {
    const titled = {
      type: "object",
      properties: {
        id: { type: "integer", title: "Note number" },
        rows: { type: "array", items: { type: "object", properties: { sku: { title: "Product code" } } } },
      },
    };
    expect(pathWords(["id"], titled)).toBe("Note number");
    expect(pathWords(["rows", 1, "sku"], titled)).toBe("Row 2 › Product code");
    expect(pathWords(["rows", 0, "unit_price"], titled)).toBe("Row 1 › Unit price");
    // The item words of the form (formItems): "Tag 2", not "Tags › 2"; an item title wins.
    expect(pathWords(["tags", 1], { type: "object", properties: { tags: { type: "array", items: { type: "string" } } } })).toBe(
      "Tag 2",
    );
    expect(pathWords(["tags", "0"])).toBe("Tag 1");
    expect(pathWords([0])).toBe("Item 1");
    const labelled = { type: "object", properties: { who: { title: "Attendees", type: "array", items: { title: "Guest" } } } };
    expect(pathWords(["who", 2], labelled)).toBe("Guest 3");
  });
});
