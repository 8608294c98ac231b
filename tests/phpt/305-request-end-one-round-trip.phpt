--TEST--
Cheap request end: all the locks a request still holds are released in one pipelined round trip
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$p = 'phpt_305:';
// a private server: its read counter must see no other test's traffic
$port = start_test_redis('305');
$uri = "redis://127.0.0.1:$port";
$raw = RawConn::tcp('127.0.0.1', $port);
function reads(): int {
    global $raw;
    foreach (explode("\n", $raw->cmd('INFO', 'stats')) as $line) {
        if (str_starts_with($line, 'total_reads_processed:')) return (int)substr($line, 22);
    }
    return -1;
}
// A child PHP takes 10 locks kept in a global array (no destructor runs before
// request end after the fatal error), reports, waits for our go, then dies.
$code = <<<PHP
\$d = new DistLock('$uri', ['prefix' => '$p']);
\$GLOBALS['held'] = [];
for (\$i = 0; \$i < 10; \$i++) \$GLOBALS['held'][] = \$d->lock("k\$i", 30);
echo "held\\n";
fgets(STDIN);
undefined_function();
PHP;
$file = tempnam(sys_get_temp_dir(), 'phpt305');
file_put_contents($file, "<?php\n" . $code);
// first on a cold script cache (as after a restart or failover), then warm
foreach (['cold script cache (NOSCRIPT, then one pipeline of EVALs)', 'warm script cache'] as $case) {
    $proc = proc_open(php_child_argv($file), [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    echo trim(fgets($pipes[1])), "; ";
    $before = reads();
    fwrite($pipes[0], "go\n");
    stream_get_contents($pipes[1]);
    proc_close($proc);
    $after = reads();
    // reads between the two INFO calls: the second INFO itself, the read that sees the
    // child's connection close (EOF), and the child's request end
    // cold: 2 (NOSCRIPT, then the EVALs), or 1 where the server has a native compare-and-delete
    // (Redis >= 8.4, Valkey >= 9.0): one pipeline of DELEX/DELIFEQ + EXISTS runs no script
    $rt = $after - $before - 2;
    $want = str_starts_with($case, 'cold') && !server_has_native_cad() ? 2 : 1;
    echo "$case: round trips at request end as the server allows: ", $rt === $want ? 'yes' : "NO ($rt)", "\n";
}
unlink($file);
echo "keys left: ", count($raw->cmd('KEYS', $p . 'k*')), "\n";
stop_test_redis_all('305');
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('305');
?>
--EXPECT--
held; cold script cache (NOSCRIPT, then one pipeline of EVALs): round trips at request end as the server allows: yes
held; warm script cache: round trips at request end as the server allows: yes
keys left: 0
