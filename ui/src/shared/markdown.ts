// Model output is untrusted: a model may write <script>, an <img onerror>,
// a javascript: link or an SVG with handlers. It is rendered by markdown-it
// with raw HTML off (so tags show as text), then sanitized by DOMPurify, and
// the page's CSP forbids inline scripts besides. Keep all three.
import DOMPurify from "dompurify";
import MarkdownIt from "markdown-it";

const md = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false });

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  // Links leave the page in a new tab without handing it a reference back.
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer nofollow");
  }
});

/** renderMarkdown returns safe HTML for untrusted Markdown text. */
export function renderMarkdown(text: string): string {
  return DOMPurify.sanitize(md.render(text), {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe"],
    FORBID_ATTR: ["style"],
  });
}
