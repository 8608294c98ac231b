<?php
/*
 * tests/valgrind/filter.php MEMFILE OUTFILE — sorts one run-tests .mem file
 * (valgrind's log for a test and every process it forked or ran) and prints
 * "real ..." or "noise ..."; OUTFILE gets the records that count.
 *
 * Memory errors (invalid reads, uninitialised values, ...) always count. So do
 * leaks, except in a process that did not shut down cleanly (a fatal error, a
 * signal): PHP skips most of its cleanup after a bailout, and with
 * USE_ZEND_ALLOC=0 whatever the request still held shows as lost (plain PHP
 * with no extension does it: any object alive at the fatal error "leaks",
 * ours too). Such a process is recognised by the leaked op_array of its main
 * script (a stack through compile_file), which only an unclean end leaves.
 * Leaks on those paths are therefore not checked here; memory errors are.
 */
[, $in, $out] = $argv;
$lines = @file($in, FILE_IGNORE_NEW_LINES) ?: [];
$records = [];            // pid => list of records (arrays of lines)
$cur = [];
$other = [];              // lines valgrind did not write (kept, they count)
foreach ($lines as $line) {
    if (!preg_match('/^==(\d+)== ?(.*)$/', $line, $m)) {
        if (trim($line) !== '') { $other[] = $line; }
        continue;
    }
    [$pid, $text] = [$m[1], $m[2]];
    if (trim($text) === '') {
        if (isset($cur[$pid]) && $cur[$pid]) { $records[$pid][] = $cur[$pid]; }
        $cur[$pid] = [];
        continue;
    }
    $cur[$pid][] = $line;
}
foreach ($cur as $pid => $r) {
    if ($r) { $records[$pid][] = $r; }
}
$isLeak = fn (array $r) => (bool) preg_match('/are (definitely|indirectly|possibly) lost in loss record/', $r[0]);
$keep = [];
$errors = $leaks = $ignored = $uncleanPids = 0;
foreach ($records as $pid => $list) {
    $unclean = false;
    foreach ($list as $r) {
        if ($isLeak($r) && preg_grep('/\bcompile_file\b/', $r)) { $unclean = true; break; }
    }
    $uncleanPids += $unclean ? 1 : 0;
    foreach ($list as $r) {
        if (!$isLeak($r)) {
            if (preg_match('/^==\d+== Warning: /', $r[0])) { continue; }   // valgrind's own notes
            $errors++; $keep[] = $r;
        } elseif (!$unclean) {
            $leaks++; $keep[] = $r;
        } else {
            $ignored++;
        }
    }
}
if ($other) { $keep[] = $other; }
file_put_contents($out, implode("\n\n", array_map(fn ($r) => implode("\n", $r), $keep)) . ($keep ? "\n" : ''));
if ($errors + $leaks > 0 || $other) {
    echo "real $errors memory error(s), $leaks leak(s)" . ($other ? ', ' . count($other) . ' other line(s)' : '') . "\n";
} else {
    echo "noise $ignored leak record(s) in $uncleanPids process(es) that ended in a fatal error or signal\n";
}
