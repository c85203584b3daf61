"""The HTML reports' page: one head, one style sheet, one environment for every report.

Every value is escaped and a missing one is an error. A report's template extends
``informe.html``: it gives its ``cuerpo`` (what follows the title) and, where it needs them,
a wider ``ancho`` and more rules in ``estilo``; the adjudication report, the stage report
and the designer's comparison look alike because they are one page. Its charts are drawn by
``grafico`` (``{% from "grafico.html" import grafico %}``): a chart drawn for both widths and
its caption.
"""

from __future__ import annotations

from jinja2 import DictLoader, Environment, StrictUndefined

REPORT = """<!DOCTYPE html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}</title>
<style>
body { font-family: "DejaVu Sans", "Segoe UI", Arial, sans-serif; color: #1a1a1a;
  max-width: {% block ancho %}60rem{% endblock %}; margin: 2rem auto; padding: 0 1rem;
  line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.25rem; margin-top: 2.2rem; border-bottom: 2px solid #034e7b;
  padding-bottom: 0.2rem; }
h3 { font-size: 1.05rem; margin-top: 1.6rem; }
.sub { color: #555; margin-top: 0; }
table { border-collapse: collapse; margin: 0.6rem 0 1rem; font-size: 0.92rem; }
th, td { border: 1px solid #c8c8c8; padding: 0.3rem 0.6rem; vertical-align: top; }
th { background: #eef3f8; text-align: left; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.kv th { width: 22rem; font-weight: normal; }
table.kv td { font-variant-numeric: tabular-nums; }
tr.total td { font-weight: bold; background: #f6f6f6; }
code { font-size: 0.85rem; word-break: break-all; }
figure { margin: 1.5rem 0; page-break-inside: avoid; }
figure svg { max-width: 100%; height: auto; display: block; }
/* Each chart is drawn for a wide screen and for a phone; the screen shows the one for it. */
svg.grafica-estrecha { display: none; }
@media (max-width: 47.5rem) {
  svg.grafica-ancha { display: none; } svg.grafica-estrecha { display: block; }
}
figcaption { font-size: 0.92rem; color: #333; margin-top: 0.4rem; }
.nota { font-size: 0.85rem; color: #444; }
{% block estilo %}{% endblock %}
@media (max-width: 40rem) {
  body { margin: 1rem auto; padding: 0 0.6rem; }
  table { display: block; overflow-x: auto; max-width: 100%; }
  table.kv th { width: auto; }
  td:first-child { position: sticky; left: 0; background: white; }
  th:first-child { position: sticky; left: 0; }
}
@media print { body { margin: 0; max-width: none; } h2 { page-break-after: avoid; } }
</style>
</head>
<body>
<main>
<h1>{{ title }}</h1>
{% block cuerpo %}{% endblock %}
</main>
</body>
</html>
"""

# A chart and its caption, one markup for every report: each chart is drawn for the width it
# is shown at (``render.charts.responsive_svg``), so it no longer scrolls sideways and needs
# no region of its own.
CHART = """{% macro grafico(titulo, svg, pie="", id="", encabezado=true) -%}
<figure{% if id %} id="{{ id }}"{% endif %}>
{%- if encabezado %}
<h3>{{ titulo }}</h3>{% endif %}
{{ svg }}
{%- if pie %}
<figcaption>{{ pie }}</figcaption>{% endif %}
</figure>
{%- endmacro %}"""

PAGES = Environment(
    autoescape=True,
    undefined=StrictUndefined,
    keep_trailing_newline=True,
    loader=DictLoader({"informe.html": REPORT, "grafico.html": CHART}),
)
