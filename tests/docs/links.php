<?php
// tests/docs/links.php — the docs' links and the README's moved headings.
//
//  - README.md has at most 400 lines (the reference lives in docs/);
//  - tests/docs/moved-headings.txt maps every heading of the README as it was
//    before its reference moved to docs/ (commit abd3011, 1,427 lines) to the
//    section that holds its text now ("FILE#anchor"): each heading is listed
//    (checked against `git show abd3011:README.md` when the history is there)
//    and each section exists;
//  - every relative link of README.md, docs/*.md, docs/decisions/*.md (the
//    design record, one decision a file), integrations/*/README.md and
//    bench/*.md reaches an existing file, and its #anchor a heading of that
//    file, by GitHub's anchor rules (github-slugger: the heading's text
//    lower-cased, punctuation dropped, spaces made hyphens, "-1", "-2" ... on
//    repeats);
//  - every reference to a docs/...md file in the sources' comments (src/**/*.c,
//    src/**/*.h, src/**/*.stub.php, stubs/*.php), the models (tests/model/*.pml,
//    *.checks, *.ties), the phpt tests, tests/unit/Makefile and bench/*.php
//    names an existing file; a "#anchor" after it must be a heading of that
//    file, and so must a quoted heading right after it (docs/x.md, "Heading":
//    the heading's text or its beginning, backticks and case ignored; the
//    quote may run over comment lines).
// Prints PASS:/FAIL: lines, then "links: done".
chdir(__DIR__ . '/../..');

/** The headings of a markdown text (outside fenced blocks), in order. */
function md_headings(string $text): array
{
    $out = [];
    $fence = null;
    foreach (preg_split('/\r?\n/', $text) as $line) {
        if (preg_match('/^\s*(`{3,}|~{3,})/', $line, $m)) {
            if ($fence === null) {
                $fence = $m[1][0];
            } elseif ($m[1][0] === $fence) {
                $fence = null;
            }
            continue;
        }
        if ($fence === null && preg_match('/^(#{1,6})\s+(.*?)\s*#*\s*$/', $line, $m)) {
            $out[] = $m[1] . ' ' . $m[2];
        }
    }
    return $out;
}

/** GitHub's anchor of a heading's markdown text (without the #s). */
function gh_slug(string $heading): string
{
    $t = preg_replace('/!?\[([^\]]*)\]\([^)]*\)/', '$1', $heading);   // links and images: their text
    $t = preg_replace('/<[^>]+>/', '', $t);                           // inline HTML
    $t = str_replace(['`', '*'], '', $t);
    $t = mb_strtolower($t, 'UTF-8');
    $t = preg_replace('/[^\p{L}\p{N}\p{M}\p{Pc} -]/u', '', $t);
    return str_replace(' ', '-', $t);
}

/** The anchors of a markdown file, repeats numbered as GitHub does. */
function md_anchors(string $file): array
{
    static $cache = [];
    if (isset($cache[$file])) {
        return $cache[$file];
    }
    $seen = [];
    $anchors = [];
    foreach (md_headings(file_get_contents($file)) as $h) {
        $slug = gh_slug(preg_replace('/^#+\s+/', '', $h));
        $a = isset($seen[$slug]) ? $slug . '-' . $seen[$slug] : $slug;
        $seen[$slug] = ($seen[$slug] ?? 0) + 1;
        $anchors[$a] = true;
    }
    // explicit anchors: <a id="..."> / <a name="...">
    preg_match_all('/<a\s+(?:id|name)="([^"]+)"/', file_get_contents($file), $m);
    foreach ($m[1] as $a) {
        $anchors[$a] = true;
    }
    return $cache[$file] = $anchors;
}

function pass(string $m): void { echo "PASS: $m\n"; }
function fail(string $m): void { echo "FAIL: $m\n"; }

/** "FILE#anchor" exists? Returns null when it does, else why not. */
function target_problem(string $target): ?string
{
    [$path, $anchor] = array_pad(explode('#', $target, 2), 2, null);
    if (!file_exists($path)) {
        return "no file $path";
    }
    if ($anchor !== null && $anchor !== '' && str_ends_with($path, '.md') && !isset(md_anchors($path)[$anchor])) {
        return "no heading with the anchor #$anchor in $path";
    }
    return null;
}

// --- the README: a front door, read in ten minutes ---------------------------
$n = count(file('README.md'));
$n <= 400 ? pass("README.md has $n lines (at most 400: the reference is in docs/)")
          : fail("README.md has $n lines: more than 400 (move the reference to docs/)");

// --- moved headings ---------------------------------------------------------
$map = [];
foreach (file('tests/docs/moved-headings.txt', FILE_IGNORE_NEW_LINES) as $n => $line) {
    if ($line === '' || $line[0] === ';') {
        continue;
    }
    if (!preg_match('/^(#{1,6} .*?)\s+->\s+(\S+)$/', $line, $m)) {
        fail("moved-headings.txt line " . ($n + 1) . ": not \"HEADING -> FILE#anchor\"");
        continue;
    }
    $map[$m[1]] = $m[2];
}
$old = null;
exec('git show abd3011:README.md 2>/dev/null', $lines, $rc);
if ($rc === 0) {
    $old = md_headings(implode("\n", $lines));
    $missing = array_diff($old, array_keys($map));
    $extra = array_diff(array_keys($map), $old);
    if ($missing || $extra) {
        fail('moved-headings.txt and the headings of abd3011:README.md differ: missing ' . json_encode(array_values($missing)) . ', not there ' . json_encode(array_values($extra)));
    } else {
        pass('moved-headings.txt lists the ' . count($old) . ' headings of the README at abd3011');
    }
} else {
    echo "  (no git history here: moved-headings.txt is taken as the list of the old headings)\n";
}
$bad = 0;
foreach ($map as $h => $target) {
    if (($p = target_problem($target)) !== null) {
        fail("moved heading \"$h\" -> $target: $p");
        $bad++;
    }
}
if ($bad === 0) {
    pass('every old heading (' . count($map) . ') names a section that exists');
}

// --- links ------------------------------------------------------------------
$files = array_merge(['README.md'], glob('docs/*.md'), glob('docs/decisions/*.md'), glob('integrations/*/README.md'), glob('bench/*.md'));
$count = 0;
$bad = 0;
foreach ($files as $file) {
    $text = file_get_contents($file);
    // code is not links: fenced blocks and inline code out
    $text = preg_replace('/^\s*(`{3,}|~{3,}).*?^\s*\1\s*$/ms', '', $text);
    $text = preg_replace('/`[^`\n]*`/', '', $text);
    preg_match_all('/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/', $text, $m);
    foreach ($m[1] as $link) {
        if (preg_match('#^[a-z][a-z0-9+.-]*:#i', $link)) {
            continue;   // http:, https:, mailto:
        }
        $count++;
        [$path, $anchor] = array_pad(explode('#', $link, 2), 2, null);
        $resolved = $path === '' ? $file : normalize(dirname($file) . '/' . rawurldecode($path));
        $target = $resolved . ($anchor !== null ? "#$anchor" : '');
        if (($p = target_problem($target)) !== null) {
            fail("$file: link ($link): $p");
            $bad++;
        }
    }
}
if ($bad === 0) {
    pass("every relative link ($count, in " . count($files) . " files) reaches its file and heading");
}

// --- references to docs/ in the code's comments ------------------------------
/** Files under $dir (recursively) whose name matches $re. */
function files_under(string $dir, string $re): array
{
    $out = [];
    $it = new RecursiveIteratorIterator(new RecursiveDirectoryIterator($dir, FilesystemIterator::SKIP_DOTS));
    foreach ($it as $f) {
        if ($f->isFile() && preg_match($re, $f->getFilename())) {
            $out[] = $f->getPathname();
        }
    }
    sort($out);
    return $out;
}

/** Does $heading (a quoted heading from a comment) name a heading of $file? */
function heading_named(string $file, string $heading): bool
{
    $want = mb_strtolower(str_replace('`', '', $heading), 'UTF-8');
    foreach (md_headings(file_get_contents($file)) as $h) {
        $text = mb_strtolower(str_replace('`', '', preg_replace('/^#+\s+/', '', $h)), 'UTF-8');
        if ($text === $want || str_starts_with($text, $want)) {
            return true;
        }
    }
    return false;
}

/** The problems of the docs/ references in one file: [line => why]. */
function reference_problems(string $file, int &$count): array
{
    $text = file_get_contents($file);
    $out = [];
    // docs/PATH.md, then an optional #anchor, or an optional quoted heading
    // after a comma, colon or blanks (a comment's line break and its leader,
    // " * ", "// " or "# ", may come between, and inside the quote).
    $gap = '(?:[ \t]|\n[ \t]*(?:\*(?!\/)|\/\/|#)?)';
    $re = '~(?<![\w/.-])(docs/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md)(?:#([A-Za-z0-9_-]+))?(?:[,:]?' . $gap . '+"([^"]{1,200})")?~';
    preg_match_all($re, $text, $m, PREG_SET_ORDER | PREG_OFFSET_CAPTURE);
    foreach ($m as $hit) {
        $count++;
        $line = substr_count($text, "\n", 0, $hit[0][1]) + 1;
        $path = $hit[1][0];
        $anchor = isset($hit[2]) && $hit[2][1] >= 0 ? $hit[2][0] : '';
        $quoted = isset($hit[3]) && $hit[3][1] >= 0 ? $hit[3][0] : '';
        if (($p = target_problem($path . ($anchor !== '' ? "#$anchor" : ''))) !== null) {
            $out[] = [$line, "$path" . ($anchor !== '' ? "#$anchor" : '') . ": $p"];
            continue;
        }
        if ($quoted !== '') {
            $heading = trim(preg_replace('~\s*\n[ \t]*(?:\*(?!\/)|\/\/|#)?[ \t]*~', ' ', $quoted));
            if (!heading_named($path, $heading)) {
                $out[] = [$line, "$path, \"$heading\": no such heading in $path"];
            }
        }
    }
    return $out;
}

$groups = [
    'src/ C sources (*.c)'       => files_under('src', '/\.c$/'),
    'src/ C headers (*.h)'       => files_under('src', '/\.h$/'),
    'stubs (src/**/*.stub.php, stubs/*.php)' => array_merge(files_under('src', '/\.stub\.php$/'), glob('stubs/*.php')),
    'models (tests/model/*.pml, *.checks, *.ties)' => array_merge(glob('tests/model/*.pml'), glob('tests/model/*.checks'), glob('tests/model/*.ties')),
    'tests (tests/phpt/*.phpt, tests/unit/Makefile)' => array_merge(glob('tests/phpt/*.phpt'), ['tests/unit/Makefile']),
    'bench/*.php'                => glob('bench/*.php'),
];
foreach ($groups as $name => $group) {
    $count = 0;
    $bad = 0;
    foreach ($group as $file) {
        foreach (reference_problems($file, $count) as [$line, $why]) {
            fail("$file:$line: reference to $why");
            $bad++;
        }
    }
    if ($bad === 0) {
        pass("$name: every docs/ reference ($count, in " . count($group) . " files) names an existing file and heading");
    }
}
echo "links: done\n";

function normalize(string $path): string
{
    $out = [];
    foreach (explode('/', $path) as $part) {
        if ($part === '' || $part === '.') {
            continue;
        }
        if ($part === '..') {
            array_pop($out);
        } else {
            $out[] = $part;
        }
    }
    return implode('/', $out);
}
