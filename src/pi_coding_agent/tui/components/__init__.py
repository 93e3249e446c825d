"""Built-in components (Pi's ``Text``, ``Box``, ``Spacer``, ``Markdown``, ``SelectList``, ...)."""
