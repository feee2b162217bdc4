/* HTML output helpers of report.html: escaping, relative links, numbers, the page's frame. */
#include "html.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void html_esc(FILE *f, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        switch (*c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            if (*c >= 0x20 || *c == '\n' || *c == '\t')
                fputc(*c, f);
        }
    }
}

void html_escf(FILE *f, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < (int)sizeof buf) {
        html_esc(f, buf);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big)
        return;
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    html_esc(f, big);
    free(big);
}

/* Relative and harmless: no scheme, no leading slash, no "//" that a browser could read as a host. */
static int is_safe_relative(const char *p)
{
    return p && *p && *p != '/' && !strchr(p, ':') && !strstr(p, "//");
}

static void put_url_path(FILE *f, const char *p)
{
    for (const unsigned char *c = (const unsigned char *)p; *c; c++) {
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
            strchr("-._~/", *c))
            fputc(*c, f);
        else
            fprintf(f, "%%%02X", *c);
    }
}

void html_link(FILE *f, const char *rel, const char *text)
{
    if (!is_safe_relative(rel)) {
        html_esc(f, text);
        return;
    }
    fputs("<a href=\"", f);
    put_url_path(f, rel);
    fputs("\">", f);
    html_esc(f, text);
    fputs("</a>", f);
}

void html_num(FILE *f, double v)
{
    if (!isfinite(v)) {
        fputs("-", f);
        return;
    }
    char plain[64];
    snprintf(plain, sizeof plain, "%.*f", v == floor(v) ? 0 : 1, fabs(v));
    size_t whole = strcspn(plain, ".");
    if (v < 0)
        fputc('-', f);
    for (size_t i = 0; i < whole; i++) {
        if (i && (whole - i) % 3 == 0)
            fputc(',', f);
        fputc(plain[i], f);
    }
    fputs(plain + whole, f);
}

void html_short_num(char *out, size_t len, double v)
{
    double a = fabs(v);
    if (a >= 1e9)
        snprintf(out, len, "%.3gG", v / 1e9);
    else if (a >= 1e6)
        snprintf(out, len, "%.3gM", v / 1e6);
    else if (a >= 1e4)
        snprintf(out, len, "%.3gk", v / 1e3);
    else
        snprintf(out, len, "%.4g", v);
}

static const char STYLE[] =
    "body{font:14px/1.4 'DejaVu Sans',Arial,sans-serif;color:#222;margin:0 auto;max-width:1240px;"
    "padding:12px 20px}\n"
    "h1{font-size:22px;margin:8px 0}h2{font-size:18px;border-bottom:1px solid #ccc;"
    "margin-top:28px}h3{font-size:15px;margin:16px 0 6px}\n"
    "table{border-collapse:collapse;margin:6px 0}td,th{padding:2px 8px;text-align:left;"
    "vertical-align:top}th{background:#eef1f5}\n"
    "table.grid td,table.grid th{border:1px solid #d5d9e0}\n"
    "table.kv th{background:none;font-weight:normal;color:#555;padding-right:14px}\n"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".mono,table.tree td{font-family:'DejaVu Sans Mono',monospace;font-size:12px}\n"
    ".status-ok{color:#1a7f37;font-weight:bold}.status-bad{color:#c62828;font-weight:bold}\n"
    ".status-warn{color:#b26a00;font-weight:bold}\n"
    ".plots{display:grid;grid-template-columns:repeat(auto-fill,minmax(360px,1fr));gap:12px}"
    ".plots figure{margin:0;border:1px solid #e3e6ea;padding:6px}\n"
    "figure figcaption{font-weight:bold;font-size:13px;margin-bottom:2px}\n"
    "svg{width:100%;height:auto;display:block}svg text{font-size:11px;fill:#333}\n"
    "svg .axis{stroke:#888;stroke-width:1}svg .grid{stroke:#e4e4e4;stroke-width:1}\n"
    "svg .series{fill:none;stroke:#1f77b4;stroke-width:1.6}svg .pt{fill:#1f77b4}\n"
    "svg .bar.weight{fill:#fff;stroke:#888}svg .bar.drawn{fill:#1f77b4}\n"
    ".nodata{color:#777;font-style:italic;padding:30px 0;text-align:center}\n"
    ".legend .item{white-space:nowrap;margin-right:14px}.legend span.sw{display:inline-block;"
    "width:11px;height:11px;margin-right:4px;vertical-align:-1px;border:1px solid #999}\n"
    "nav{margin:6px 0 0}nav a{margin-right:14px}\n"
    "tr.diff{background:#fff4d6}td.attr-diff{background:#f7b0a8;font-weight:bold}\n"
    "td.absent{background:repeating-linear-gradient(45deg,#f6e3e1,#f6e3e1 6px,#fbf0ef 6px,"
    "#fbf0ef 12px);color:#8a4b45;font-style:italic}\n"
    "td.sep{border-left:3px solid #9aa4b1}\n"
    "td.differs{color:#c62828;font-weight:bold}\n"
    "section.disc{border:1px solid #d5d9e0;padding:4px 14px 10px;margin:14px 0}\n"
    ".note{color:#555}details summary{cursor:pointer;color:#1f4f8b}\n"
    "pre{background:#f6f8fa;padding:8px;overflow:auto;font-size:12px}\n";

void html_page_begin(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", f);
    html_esc(f, title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head><body>\n", STYLE);
}

void html_page_end(FILE *f)
{
    fputs("</body></html>\n", f);
}
