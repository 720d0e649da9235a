/**
 * rjsf's buttons of list fields (move up, move down, remove, add) show only a glyph (↑ ↓ ✕ +),
 * which a screen reader reads as "up arrow" or "multiplication x". These templates give them
 * names: "Move item 2 up", "Remove item 2", "Add an item". Used by SchemaForm.
 */
import { buttonId, type ArrayFieldItemButtonsTemplateProps, type IconButtonProps } from "@rjsf/utils";

/** The accessible names of one list item's buttons (`index` counts from 0). */
export function itemButtonNames(index: number): { up: string; down: string; copy: string; remove: string } {
  const n = index + 1;
  return { up: `Move item ${n} up`, down: `Move item ${n} down`, copy: `Copy item ${n}`, remove: `Remove item ${n}` };
}

export const ADD_ITEM = "Add an item";

/** rjsf's ArrayFieldItemButtonsTemplate, with each button named after its item. */
export function ItemButtons(props: ArrayFieldItemButtonsTemplateProps) {
  const { disabled, hasCopy, hasMoveDown, hasMoveUp, hasRemove, fieldPathId, index, onCopyItem, onRemoveItem, onMoveDownItem, onMoveUpItem, readonly, registry, uiSchema } = props;
  const { CopyButton, MoveDownButton, MoveUpButton, RemoveButton } = registry.templates.ButtonTemplates;
  const names = itemButtonNames(index);
  const off = disabled || readonly;
  return (
    <>
      {(hasMoveUp || hasMoveDown) && (
        <MoveUpButton id={buttonId(fieldPathId, "moveUp")} className="rjsf-array-item-move-up" aria-label={names.up} title={names.up} disabled={off || !hasMoveUp} onClick={onMoveUpItem} uiSchema={uiSchema} registry={registry} />
      )}
      {(hasMoveUp || hasMoveDown) && (
        <MoveDownButton id={buttonId(fieldPathId, "moveDown")} className="rjsf-array-item-move-down" aria-label={names.down} title={names.down} disabled={off || !hasMoveDown} onClick={onMoveDownItem} uiSchema={uiSchema} registry={registry} />
      )}
      {hasCopy && (
        <CopyButton id={buttonId(fieldPathId, "copy")} className="rjsf-array-item-copy" aria-label={names.copy} title={names.copy} disabled={off} onClick={onCopyItem} uiSchema={uiSchema} registry={registry} />
      )}
      {hasRemove && (
        <RemoveButton id={buttonId(fieldPathId, "remove")} className="rjsf-array-item-remove" aria-label={names.remove} title={names.remove} disabled={off} onClick={onRemoveItem} uiSchema={uiSchema} registry={registry} />
      )}
    </>
  );
}

/** rjsf's AddButton: the same "+", named "Add an item". */
export function AddItemButton({ id, className, onClick, disabled }: IconButtonProps) {
  return (
    <p className={`array-add ${className ?? ""}`}>
      <button type="button" id={id} className="btn btn-info btn-add" aria-label={ADD_ITEM} title={ADD_ITEM} onClick={onClick} disabled={disabled}>
        <i className="glyphicon glyphicon-plus" aria-hidden="true" />
      </button>
    </p>
  );
}
