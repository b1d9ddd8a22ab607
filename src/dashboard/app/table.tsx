// A list screen's table: it scrolls sideways on a narrow screen (390 px), its column heads, and a
// last head for the row actions read by screen readers only (docs/dashboard.md, Screens).
import type { ComponentChildren } from 'preact';

export function Table(p: {
  testId?: string;
  heads: ComponentChildren[];
  /** A last column of row actions (buttons), named for screen readers. */
  actions?: boolean;
  /** The id of the heading naming a table whose rows are wide: the region is then focusable, so
   *  the keyboard can scroll it too (axe-core: scrollable-region-focusable). */
  labelledBy?: string;
  children: ComponentChildren;
}) {
  return (
    <div
      class="scroll"
      {...(p.labelledBy ? { role: 'region', 'aria-labelledby': p.labelledBy, tabIndex: 0 } : {})}
    >
      <table data-testid={p.testId}>
        <thead>
          <tr>
            {p.heads.map((h, i) => (
              <th key={i} scope="col">
                {h}
              </th>
            ))}
            {p.actions ? (
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>{p.children}</tbody>
      </table>
    </div>
  );
}
