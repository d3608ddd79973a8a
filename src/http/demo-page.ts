/**
 * GET / — a small demo chat page. It reads the AI SDK UI message stream by
 * hand (no bundler here) and shows text and tool parts as they arrive.
 */
export const DEMO_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Switchboard</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;max-width:760px;margin:2rem auto;padding:0 1rem;color:#222}
fieldset{border:1px solid #ddd;border-radius:6px;margin-bottom:1rem}
input,textarea,button{font:inherit}input{width:100%;box-sizing:border-box;margin:.2rem 0}
#log{border:1px solid #ddd;border-radius:6px;padding:.75rem;min-height:8rem;white-space:pre-wrap}
.user{color:#0550ae}.tool{color:#6f42c1;font-family:ui-monospace,monospace;font-size:13px}.err{color:#b00}
form.send{display:flex;gap:.5rem;margin-top:.75rem}form.send input{flex:1}
</style></head><body>
<h1>Switchboard</h1>
<p>Chat with a session. Get a key and session from <code>npm start</code>'s output.</p>
<fieldset><legend>Connection</legend>
<label>API key <input id="key" autocomplete="off" placeholder="sk_sb_…"></label>
<label>Session id <input id="session" value="demo"></label></fieldset>
<div id="log" aria-live="polite"></div>
<form class="send"><input id="msg" placeholder="Say something… (try: weather in Paris, use get_weather)" required>
<button>Send</button></form>
<script>
const $ = (id) => document.getElementById(id);
for (const id of ["key", "session"]) { $(id).value = localStorage.getItem("sb-" + id) || $(id).value;
  $(id).onchange = () => localStorage.setItem("sb-" + id, $(id).value); }
function line(cls, text) { const d = document.createElement("div"); d.className = cls; d.textContent = text;
  $("log").append(d); return d; }
document.querySelector("form.send").onsubmit = async (e) => {
  e.preventDefault();
  const text = $("msg").value; $("msg").value = "";
  line("user", "you: " + text);
  const res = await fetch("/v1/sessions/" + encodeURIComponent($("session").value) + "/messages", {
    method: "POST", headers: { authorization: "Bearer " + $("key").value, "content-type": "application/json" },
    body: JSON.stringify({ content: text }) });
  if (!res.ok) { line("err", "error " + res.status + ": " + (await res.text())); return; }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "", cur = null;
  for (;;) {
    const { value, done } = await reader.read(); if (done) break; buf += value;
    let i; while ((i = buf.indexOf("\\n\\n")) >= 0) {
      const frame = buf.slice(0, i); buf = buf.slice(i + 2);
      const data = frame.split("\\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\\n");
      if (!data || data === "[DONE]") continue;
      const c = JSON.parse(data);
      if (c.type === "text-start") cur = line("", "");
      else if (c.type === "text-delta" && cur) cur.textContent += c.delta;
      else if (c.type === "tool-input-available") line("tool", "→ " + c.toolName + " " + JSON.stringify(c.input));
      else if (c.type === "tool-output-available") line("tool", "← " + JSON.stringify(c.output).slice(0, 300));
      else if (c.type === "tool-output-error" || c.type === "error") line("err", c.errorText);
    }
  }
};
</script></body></html>`;
