# dpkg status paragraphs -> YAML files of 25 packages each in directory `dir`
# (awk -v dir=DIR): a sequence of mappings, every value a double-quoted
# scalar, continuation lines joined with \n. Used by run.sh for libyaml.
function flush() {
  if (key == "") return
  gsub(/\\/, "\\\\", val); gsub(/"/, "\\\"", val); gsub(/\t/, "\\t", val)
  printf "%s%s: \"%s\"\n", (n == 0 ? "- " : "  "), key, val >> out; n++; key = ""
}
BEGIN { pkgs = 0; out = sprintf("%s/status-%04d.yaml", dir, 0) }
/^$/ { flush(); if (n) { pkgs++; if (pkgs % 25 == 0) { close(out); out = sprintf("%s/status-%04d.yaml", dir, pkgs / 25) } } n = 0; next }
/^[ \t]/ { sub(/^[ \t]/, ""); val = val "\\n" $0; next }
{ flush(); i = index($0, ":"); key = substr($0, 1, i - 1); val = substr($0, i + 1); sub(/^ /, "", val) }
END { flush() }
