// The link map: draws the graph the server put in #map-data with
// Cytoscape.js. Labels are drawn on a canvas as text, never as HTML.
import cytoscape from '../vendor/cytoscape-3.34.4.esm.min.mjs';

const HEALTH = { good: '#15803d', fair: '#b45309', poor: '#b91c1c', none: '#6b7280' };
const TYPES = {
  vertical_up: '#1d4ed8', vertical_down: '#7c3aed', horizontal: '#0f766e', cross_cluster: '#c2410c',
  taxonomy: '#a21caf', breadcrumb: '#4b5563', related: '#be123c', live: '#0e7490',
};
const KIND_SHAPES = { hub: 'star', supporting: 'ellipse', term: 'diamond', product: 'round-rectangle', service: 'round-rectangle', outside: 'ellipse' };

function band(h) {
  if (h === undefined || h === null) return 'none';
  if (h >= 80) return 'good';
  return h >= 50 ? 'fair' : 'poor';
}

const container = document.getElementById('graph');
const graph = JSON.parse(document.getElementById('map-data').textContent);
const clusters = graph.view === 'clusters';
const maxSize = Math.max(1, ...graph.nodes.map((n) => n.size));
const maxWeight = Math.max(1, ...graph.edges.map((e) => e.weight || 1));

const elements = [];
for (const n of graph.nodes) {
  elements.push({ group: 'nodes', data: { id: n.id, label: n.label, href: n.href, kind: n.kind, size: n.size,
    colour: clusters ? HEALTH[band(n.health)] : (n.kind === 'outside' ? '#9ca3af' : '#374151') } });
}
for (const e of graph.edges) {
  elements.push({ group: 'edges', data: { id: e.id, source: e.source, target: e.target, weight: e.weight || 1,
    colour: clusters ? '#6b7280' : (TYPES[e.type] || '#6b7280') } });
}

const big = graph.nodes.length > 150;

// A cluster by its pages; a page of the cluster by its inbound links, a
// page of elsewhere small.
function radius(n) {
  const share = Math.sqrt(n.data('size') / maxSize);
  if (clusters) return 14 + 46 * share;
  return n.data('kind') === 'outside' ? 10 : 20 + 22 * share;
}
const layout = big
  ? { name: 'concentric', concentric: (n) => n.data('size'), levelWidth: () => Math.max(1, maxSize / 8), animate: false, minNodeSpacing: 4 }
  : { name: 'cose', animate: false, randomize: false, nodeRepulsion: () => 400000, nodeOverlap: 40, idealEdgeLength: () => 110,
      edgeElasticity: () => 60, gravity: 0.4, numIter: 1500, padding: 30, componentSpacing: 80 };

const cy = cytoscape({
  container,
  elements,
  layout,
  minZoom: 0.05,
  maxZoom: 4,
  style: [
    { selector: 'node', style: {
      'background-color': 'data(colour)', label: 'data(label)', 'font-size': 11, color: '#111827',
      'text-outline-color': '#ffffff', 'text-outline-width': 2, 'text-valign': 'bottom', 'text-margin-y': 3,
      'text-wrap': 'ellipsis', 'text-max-width': 140, 'border-width': 1, 'border-color': '#1f2937',
      'font-weight': (n) => (n.data('kind') === 'outside' ? 'normal' : 'bold'),
      width: radius,
      height: radius,
      shape: (n) => (clusters ? 'ellipse' : KIND_SHAPES[n.data('kind')] || 'ellipse'),
      'min-zoomed-font-size': big ? 8 : 0,
    } },
    { selector: 'edge', style: {
      'line-color': 'data(colour)', 'target-arrow-color': 'data(colour)', 'target-arrow-shape': clusters ? 'none' : 'triangle',
      'curve-style': clusters ? 'haystack' : 'bezier', 'arrow-scale': 0.8,
      width: (e) => (clusters ? 1 + 7 * (e.data('weight') / maxWeight) : 1.5), opacity: clusters ? 0.55 : 0.85,
    } },
    { selector: 'node:selected', style: { 'border-width': 4, 'border-color': '#b45309' } },
  ],
});

cy.on('tap', 'node', (ev) => {
  const href = ev.target.data('href');
  if (href) location.assign(href);
});

// Tests and the benchmark wait for this: the graph is laid out and drawn.
cy.ready(() => {
  requestAnimationFrame(() => {
    container.dataset.drawn = 'true';
    container.dataset.nodes = String(cy.nodes().length);
  });
});
window.interlinkerMap = cy;
