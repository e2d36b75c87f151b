// Freehand ink for the map's drawing tool (map_tools.js): the vendored perfect-freehand turns
// the points a finger or a pen went through (with its pressure, when the screen gives one)
// into the outline of a stroke that thickens and thins like ink. A module, so that the
// library's own file is loaded unmodified (static/vendor/perfect-freehand-1.2.3).
import { getStroke } from "../vendor/perfect-freehand-1.2.3/index.mjs";

window.TableeInk = {
  outline(points, size) {
    return getStroke(points, { size, thinning: 0.5, smoothing: 0.5, streamline: 0.5,
      simulatePressure: !points.some((point) => point.length > 2 && point[2] !== 0.5) });
  },
};
