import { describe, expect, it } from "vitest";
import { expandMatrix, type Dimension } from "../../src/plan/matrix.js";

const dims = (spec: Record<string, unknown[]>): Dimension[] =>
  Object.entries(spec).map(([key, values]) => ({
    key: key as Dimension["key"],
    values: values as never[],
    path: [key],
  }));
const cells = (...args: Parameters<typeof expandMatrix>) => expandMatrix(...args).map((cell) => cell.values);

describe("matrix (GitHub Actions semantics)", () => {
  it("is the cartesian product, first dimension outermost", () => {
    expect(cells(dims({ bs: [1, 2], read: [100, 0] }), [], [], [])).toEqual([
      { bs: 1, read: 100 },
      { bs: 1, read: 0 },
      { bs: 2, read: 100 },
      { bs: 2, read: 0 },
    ]);
  });

  it("exclude removes every cell matching all of an entry's keys", () => {
    expect(cells(dims({ bs: [1, 2], read: [100, 0] }), [{ bs: 1 }, { bs: 2, read: 0 }], [], [])).toEqual([
      { bs: 2, read: 100 },
    ]);
  });

  it("include extends matching cells and adds the ones that match none", () => {
    // The example from the GitHub Actions documentation, with parameters for fruits and animals.
    const result = cells(
      dims({ op: ["write", "read"], concurrency: [1, 2] }),
      [],
      [
        { objects: 10 }, // no dimension keys: added to every cell
        { op: "write", objects: 20 }, // overwrites the added value for write cells only
        { op: "read", concurrency: 1, size: 5 }, // extends one cell
        { op: "delete" }, // matches no cell: a new one
        { concurrency: 2, op: "write", size: 7, objects: 30 },
      ],
      ["include"],
    );
    expect(result).toEqual([
      { op: "write", concurrency: 1, objects: 20 },
      { op: "write", concurrency: 2, objects: 30, size: 7 },
      { op: "read", concurrency: 1, objects: 10, size: 5 },
      { op: "read", concurrency: 2, objects: 10 },
      { op: "delete" },
    ]);
  });

  it("with no dimensions, each include entry is a cell of its own", () => {
    expect(cells([], [], [{ bs: 1 }, { bs: 2 }], [])).toEqual([{ bs: 1 }, { bs: 2 }]);
    expect(cells([], [], [], [])).toEqual([{}]);
  });

  it("records where each value came from", () => {
    const [cell] = expandMatrix(
      dims({ bs: [4096] }),
      [],
      [{ bs: 4096, read: 50 }],
      ["w", "matrix", "include"],
    );
    expect(cell?.origins).toEqual({
      bs: { path: ["bs", 0], source: "matrix" },
      read: { path: ["w", "matrix", "include", 0, "read"], source: "include" },
    });
  });
});
