<?php
// tests/docs/run-blocks.php FILE... — runs every fenced block of the markdown
// FILEs that parses as PHP (`php -l`, "<?php" prepended when missing), each
// as printed, in its own php process with the extension under test, after
// the prelude (tests/docs/prelude.php: $locks, $other) and, for a block that
// needs a framework, that framework's boot file (tests/docs/boot-NAME.php);
// then its checks (the docs-check / docs-expect comments after it, see
// tests/docs/blocks.php). Prints one line per block (PASS:, FAIL:, MARKED:)
// and the counts:
//   docs blocks: T PHP blocks, R run, P passed, F failed, M marked
// A block is marked when a `docs-test: skip (reason)` comment says it cannot
// run alone, when it needs a framework whose vendor directory is not there,
// or when it has no check: it is then run all the same (it must not fail),
// but counts as marked, not as run.
//
// Environment: PHP, DISTLOCK_SO, DISTLOCK_LOG_DIR; DOCS_TIMEOUT (seconds per
// block, default 60); DOCS_FLUSH ("host:port[:password] ...": the servers
// emptied before each block, so that no block sees another's keys);
// DOCS_VENDOR_<NAME> (the Composer autoload.php of framework NAME's project; without it
// the blocks that need NAME are marked, with DOCS_NO_VENDOR_<NAME> as the reason).
require __DIR__ . '/blocks.php';

$php = getenv('PHP') ?: PHP_BINARY;
$so = getenv('DISTLOCK_SO');
$logDir = rtrim(getenv('DISTLOCK_LOG_DIR') ?: sys_get_temp_dir(), '/') . '/blocks';
$timeout = (int) (getenv('DOCS_TIMEOUT') ?: 60);
@mkdir($logDir, 0777, true);

// integrations/<name>/README.md: the framework the page is about.
function docs_framework(string $file): ?string
{
    return preg_match('#^integrations/([a-z]+)/README\.md$#', $file, $m) ? $m[1] : null;
}

function docs_flush(): void
{
    foreach (preg_split('/\s+/', trim((string) getenv('DOCS_FLUSH')), -1, PREG_SPLIT_NO_EMPTY) as $server) {
        $p = explode(':', $server, 3);
        $cmd = ['redis-cli', '-h', $p[0], '-p', $p[1]];
        if (isset($p[2])) {
            array_push($cmd, '-a', $p[2], '--no-auth-warning');
        }
        $cmd[] = 'FLUSHALL';
        exec(implode(' ', array_map('escapeshellarg', $cmd)) . ' 2>&1', $out, $rc);
    }
}

[$total, $run, $passed, $failed, $marked] = [0, 0, 0, 0, 0];
$n = 0;
foreach (array_slice($argv, 1) as $file) {
    foreach (docs_blocks($file) as $b) {
        if (!docs_parses($php, $b['code'])) {
            continue;   // a shell, JSON or text block, or a PHP fragment that is not a program
        }
        $total++;
        $n++;
        $where = "{$b['file']}:{$b['line']}";
        if ($b['skip'] !== null) {
            $marked++;
            echo "MARKED: $where (skip: {$b['skip']})\n";
            continue;
        }
        $boot = [];
        $need = $b['needs'] ?? docs_framework($b['file']);
        if ($need !== null) {
            // the framework's Composer vendor directory (tests/docs/run.sh makes it), and its set-up if any
            $vendor = getenv('DOCS_VENDOR_' . strtoupper($need));
            if (!$vendor || !is_file($vendor)) {
                $marked++;
                echo "MARKED: $where (needs $need: no Composer vendor directory for it" . (getenv('DOCS_NO_VENDOR_' . strtoupper($need)) ? ': ' . getenv('DOCS_NO_VENDOR_' . strtoupper($need)) : '') . ")\n";
                continue;
            }
            $boot[] = $vendor;
            if (is_file(__DIR__ . "/boot-$need.php")) {
                $boot[] = __DIR__ . "/boot-$need.php";
            }
        }
        $blockFile = sprintf('%s/block-%03d.php', $logDir, $n);
        $mainFile = sprintf('%s/main-%03d.php', $logDir, $n);
        file_put_contents($blockFile, docs_php_source($b['code']));
        $main = "<?php\n// $where\nrequire " . var_export(__DIR__ . '/harness.php', true) . ";\n";
        foreach ($boot as $f) {
            $main .= 'require ' . var_export($f, true) . ";\n";
        }
        $main .= 'require ' . var_export(__DIR__ . '/prelude.php', true) . ";\n"
               . "\\DocsTest\\start();\n"
               . '$__docs_return = require ' . var_export($blockFile, true) . ";\n"
               . "// the docs-check comments:\n" . implode("\n;\n", $b['checks']) . "\n;\n"
               . '\DocsTest\finish(' . var_export($b['expect'], true) . ");\n";
        file_put_contents($mainFile, $main);
        docs_flush();
        $cmd = ['timeout', '--kill-after=5', (string) $timeout, $php, '-d', "extension=$so",
                '-d', 'zend.assertions=1', '-d', 'assert.exception=1', '-d', 'display_errors=stderr', '-d', 'log_errors=0', $mainFile];
        $t0 = hrtime(true);
        $proc = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['file', "$mainFile.out", 'w'], 2 => ['file', "$mainFile.err", 'w']], $pipes);
        $rc = proc_close($proc);
        $secs = (hrtime(true) - $t0) / 1e9;
        $out = (string) file_get_contents("$mainFile.out");
        $ok = $rc === 0 && str_contains($out, "\nDOCS-BLOCK-OK\n");
        $checked = $b['checks'] !== [] || $b['expect'] !== null;
        if (!$ok) {
            $failed++;
            $run++;
            $why = $rc === 124 || $rc === 137 ? "timed out after {$timeout} s" : "exit $rc";
            echo "FAIL: $where ($why; " . basename($mainFile) . ")\n";
            foreach (array_slice(preg_split('/\n/', trim(file_get_contents("$mainFile.err") . "\n" . $out)), 0, 30) as $l) {
                echo "  | $l\n";
            }
        } elseif (!$checked) {
            $marked++;
            echo "MARKED: $where (no docs-check: ran without error, checks nothing)\n";
        } else {
            $passed++;
            $run++;
            printf("PASS: %s (%s check%s, %.1f s)\n", $where, count($b['checks']) + ($b['expect'] !== null ? 1 : 0),
                   count($b['checks']) + ($b['expect'] !== null ? 1 : 0) === 1 ? '' : 's', $secs);
        }
    }
}
echo "docs blocks: $total PHP blocks, $run run, $passed passed, $failed failed, $marked marked\n";
