<?php
// tests/docs/tops.php [FILE...] — the prelude's variables are named where a
// reader starts: a page whose PHP samples use a variable of the prelude
// (tests/docs/prelude.php: $locks, $other) without assigning it first says,
// at its top, what that variable is and which server it talks to.
//
// For each page (default: README.md, docs/*.md, integrations/*/README.md),
// the samples are the fenced blocks that parse as PHP, as the docs suite runs
// them (tests/docs/blocks.php), skipped ones included (a reader sees them
// too); the hidden docs-check comments are not samples. A sample uses a
// prelude variable when the variable occurs in its code (tokens: not in a
// comment or a single-quoted string) and its first occurrence is not an
// assignment (`$locks = ...`). The page's top is its text before its first
// heading below the title (`## `, `### ` ...), its first fenced block and its
// first table (a reference table names parameters such as `array $locks`);
// it must name each such variable (`$locks`) and the host:port the
// prelude gives it (`127.0.0.1:6379`).
// Prints one PASS:/FAIL: line per page whose samples use the prelude's
// variables, then "tops: done"; exits 1 when a page failed.
chdir(__DIR__ . '/../..');
require __DIR__ . '/blocks.php';

$php = getenv('PHP') ?: PHP_BINARY;

// The prelude's variables and their servers: "$name = new DistLock('URI');".
$prelude = [];
preg_match_all('/^\$(\w+)\s*=\s*new\s+\\\\?DistLock\(\s*\'([^\']+)\'/m', file_get_contents(__DIR__ . '/prelude.php'), $m, PREG_SET_ORDER);
foreach ($m as [, $var, $uri]) {
    $u = parse_url($uri);
    $prelude[$var] = ($u['host'] ?? '') . ':' . ($u['port'] ?? 6379);
}
if ($prelude === []) {
    echo "FAIL: tests/docs/prelude.php: no \"\$name = new DistLock('URI');\" line read\n";
    echo "tops: done\n";
exit($failed === 0 ? 0 : 1);
    exit(1);
}

/** The prelude variables $code uses before (or without) assigning them. */
function prelude_uses(string $code, array $vars): array
{
    $tokens = array_values(array_filter(token_get_all(docs_php_source($code)),
        fn ($t) => !is_array($t) || !in_array($t[0], [T_WHITESPACE, T_COMMENT, T_DOC_COMMENT], true)));
    $first = [];
    foreach ($tokens as $i => $t) {
        if (is_array($t) && $t[0] === T_VARIABLE && in_array($v = substr($t[1], 1), $vars, true) && !isset($first[$v])) {
            $first[$v] = ($tokens[$i + 1] ?? null) === '=' ? 'assigned' : 'used';
        }
    }
    return array_keys(array_filter($first, fn ($how) => $how === 'used'));
}

/** The page's text before its first subheading, fenced block and table. */
function page_top(string $file, array $blocks): string
{
    $lines = preg_split('/\r?\n/', file_get_contents($file));
    $end = $blocks === [] ? count($lines) : $blocks[0]['line'] - 1;
    $top = [];
    for ($i = 0; $i < $end; $i++) {
        if (preg_match('/^#{2,6}\s|^\s*\|/', $lines[$i])) {   // a subheading, a table
            break;
        }
        $top[] = $lines[$i];
    }
    return implode("\n", $top);
}

$files = array_slice($argv, 1) ?: array_merge(['README.md'], glob('docs/*.md'), glob('integrations/*/README.md'));
$pages = $failed = 0;
foreach ($files as $file) {
    $blocks = docs_blocks($file);
    $uses = [];
    foreach ($blocks as $b) {
        if (docs_parses($php, $b['code'])) {
            foreach (prelude_uses($b['code'], array_keys($prelude)) as $v) {
                $uses[$v][] = $b['line'];
            }
        }
    }
    if ($uses === []) {
        continue;
    }
    $pages++;
    $top = page_top($file, $blocks);
    $missing = [];
    foreach (array_keys($uses) as $v) {
        if (!preg_match('/\$' . $v . '\b/', $top)) {
            $missing[] = "\$$v (used at line " . implode(', ', $uses[$v]) . ')';
        }
    }
    $servers = array_unique(array_map(fn ($v) => $prelude[$v], array_keys($uses)));
    foreach ($servers as $s) {
        if (!str_contains($top, $s)) {
            $missing[] = "the server $s";
        }
    }
    $names = '$' . implode(', $', array_keys($uses));
    $failed += $missing === [] ? 0 : 1;
    echo $missing === []
        ? "PASS: $file: its samples use $names of the prelude, and its top names them and the server " . implode(', ', $servers) . "\n"
        : "FAIL: $file: its samples use $names of the prelude, but its top (before the first subheading, block and table) does not name " . implode(', ', $missing) . "\n";
}
echo "tops: " . count($files) . " pages read, $pages with samples that use the prelude's variables\n";
echo "tops: done\n";
exit($failed === 0 ? 0 : 1);
