import type { IconButtonProps, TemplatesType } from '@rjsf/utils'
import { TranslatableString } from '@rjsf/utils'

/**
 * rjsf's array and object buttons draw a Bootstrap glyph font the console doesn't ship (nothing is
 * fetched from elsewhere), so each says in words what it does, for the eye and for screen readers.
 */
function labelled(label: TranslatableString, className: string) {
  return function FormButton({ registry, iconType: _iconType, icon: _icon, uiSchema: _uiSchema, className: extra, ...button }: IconButtonProps) {
    const text = registry.translateString(label)
    return (
      <button type="button" {...button} className={`form-button ${className} ${extra ?? ''}`} title={text} aria-label={text}>
        {text}
      </button>
    )
  }
}

export const formButtons: Partial<TemplatesType['ButtonTemplates']> = {
  AddButton: labelled(TranslatableString.AddItemButton, 'form-add'),
  CopyButton: labelled(TranslatableString.CopyButton, 'form-copy'),
  MoveUpButton: labelled(TranslatableString.MoveUpButton, 'form-move'),
  MoveDownButton: labelled(TranslatableString.MoveDownButton, 'form-move'),
  RemoveButton: labelled(TranslatableString.RemoveButton, 'form-remove'),
  ClearButton: labelled(TranslatableString.ClearButton, 'form-clear'),
}
