# Sourced by lib/figures.sh: the fixed inputs of the benchmarks, made once
# per run into $OUT (make_inputs). Same bytes on every run of one machine
# (and on every machine with the same Debian packages installed):
#   IN16  16 MiB: 12 MiB of text (a tar of /usr/share/perl and
#         /usr/share/i18n, sorted, fixed owner and mtime) then 4 MiB of
#         machine code (libc.so.6, libstdc++.so.6, libm.so.6), like a source or
#         package archive
#   IN4, IN1   its first 4 and 1 MiB
#   YAML  ~8 MiB generated YAML (records with nested mappings, flow and
#         block sequences, quoted and literal block scalars)
#   XML   ~16 MiB generated XML (elements, attributes, entities, text)
#   STATUS  a snapshot of dpkg's status file (copy_parse's input)
# The generators use their own LCG, not awk's rand (which differs between
# awk implementations).

make_inputs() {
  IN16="$OUT/in16.bin"
  IN4="$OUT/in4.bin"
  IN1="$OUT/in1.bin"
  YAML="$OUT/doc.yaml"
  XML="$OUT/doc.xml"
  STATUS="$OUT/status"
  local mib=1048576
  {
    (
      set +o pipefail
      tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - -C /usr/share perl i18n 2>/dev/null |
        head -c $((12 * mib))
    )
    (
      set +o pipefail
      cd /usr/lib/x86_64-linux-gnu && cat libc.so.6 libstdc++.so.6 libm.so.6 | head -c $((4 * mib))
    )
  } >"$IN16"
  [ "$(stat -c %s "$IN16")" = $((16 * mib)) ] || { echo "make_inputs: could not make 16 MiB of input" >&2; return 1; }
  head -c $((4 * mib)) "$IN16" >"$IN4"
  head -c $((1 * mib)) "$IN16" >"$IN1"
  cp /var/lib/dpkg/status "$STATUS"
  awk -v limit=$((8 * mib)) '
    function rnd(n) { x = (x * 16807) % 2147483647; return x % n }
    function word() { return w[1 + rnd(nw)] }
    function words(n,  s, i) { s = word(); for (i = 1; i < n; i++) s = s " " word(); return s }
    BEGIN {
      x = 42
      nw = split("alpha beta gamma delta copy memory buffer service queue segment task window parse value key map list node event stream token scalar", w, " ")
      print "%YAML 1.1"; print "---"
      for (id = 0; bytes < limit; id++) {
        r = "- id: " id "\n  name: \"pkg-" id "-" word() "\"\n  version: " rnd(10) "." rnd(100) "." rnd(1000) "\n"
        r = r "  tags: [" word() ", " word() ", " word() "]\n  deps:\n"
        nd = 1 + rnd(4)
        for (d = 0; d < nd; d++) r = r "    - {name: lib" word() rnd(100) ", version: \">= " rnd(5) "." rnd(20) "\"}\n"
        r = r "  attrs:\n    size: " rnd(100000) "\n    ratio: " rnd(1000) / 7 "\n    ok: " (rnd(2) ? "true" : "false") "\n"
        r = r "  description: |\n    " words(8 + rnd(8)) "\n    " words(4 + rnd(12)) "\n"
        printf "%s", r
        bytes += length(r)
      }
    }' >"$YAML"
  awk -v limit=$((16 * mib)) '
    function rnd(n) { x = (x * 16807) % 2147483647; return x % n }
    function word() { return w[1 + rnd(nw)] }
    function words(n,  s, i) { s = word(); for (i = 1; i < n; i++) s = s " " word(); return s }
    BEGIN {
      x = 7
      nw = split("alpha beta gamma delta copy memory buffer service queue segment task window parse value key map list node event stream token element", w, " ")
      print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
      print "<catalog xmlns=\"urn:copier:bench\" xmlns:x=\"urn:copier:extra\">"
      for (id = 0; bytes < limit; id++) {
        r = "  <item id=\"" id "\" kind=\"" word() "\" x:rank=\"" rnd(1000) "\">\n"
        r = r "    <name>" word() "-" id "</name>\n    <desc>" words(6 + rnd(10)) " &amp; " words(3 + rnd(6)) "</desc>\n"
        r = r "    <values>"
        nv = 2 + rnd(6)
        for (v = 0; v < nv; v++) r = r "<v n=\"" v "\">" rnd(100000) "</v>"
        r = r "</values>\n    <x:note><![CDATA[" words(4 + rnd(8)) " <raw> ]]></x:note>\n  </item>\n"
        printf "%s", r
        bytes += length(r)
      }
      print "</catalog>"
    }' >"$XML"
}
