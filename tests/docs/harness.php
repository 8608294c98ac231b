<?php
// tests/docs/harness.php — loaded before a block of the docs runs (by
// tests/docs/run-blocks.php): any warning or notice fails the block (an
// undefined variable in a sample is a bug in the sample), what the block
// prints is captured for its checks, and the time it took is measured.
namespace DocsTest;

set_error_handler(static function (int $no, string $msg, string $file, int $line): bool {
    if (($no & (E_DEPRECATED | E_USER_DEPRECATED)) || !(error_reporting() & $no)) {
        return false;   // deprecations are PHP's business; "@" silenced it (a framework's probe)
    }
    throw new \ErrorException($msg, 0, $no, $file, $line);
});

$GLOBALS['__docs_started_ns'] = hrtime(true);
ob_start();

/** What the block printed so far. */
function output(): string
{
    return (string) ob_get_contents();
}

/** The block starts now (after the framework's boot and the prelude). */
function start(): void
{
    $GLOBALS['__docs_started_ns'] = hrtime(true);
}

/** Seconds since the block started (monotonic clock). */
function elapsed(): float
{
    return (hrtime(true) - $GLOBALS['__docs_started_ns']) / 1e9;
}

/** The end of a block's run: compares the output with the expected one, shows it, says so. */
function finish(?string $expect): void
{
    $out = output();
    ob_end_clean();
    echo $out;
    if ($expect !== null && trim($out) !== trim($expect)) {
        fwrite(STDERR, "output differs from the docs-expect comment:\n--- expected\n" . trim($expect) . "\n--- printed\n" . trim($out) . "\n");
        exit(3);
    }
    echo "\nDOCS-BLOCK-OK\n";
}
