// The one shape of a component in both apps: a function that builds the element and returns it with
// the methods its owner calls (no custom DOM events looked up by CSS class), so a screen's parts are
// wired by the types and a part never needs to know who holds it.
export interface Component<E extends HTMLElement = HTMLElement> {
  /** The component's root, for its owner to place. */
  readonly element: E;
}
