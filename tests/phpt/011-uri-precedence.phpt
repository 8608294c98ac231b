--TEST--
Precedence: the URI's /db and ?db= beat options['database']
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
[$host, $port] = test_host_port();
function where(string $key): string {
    $found = [];
    foreach ([0, 3, 5, 7] as $db) {
        raw_redis('SELECT', $db);
        if (raw_redis('EXISTS', $key)) $found[] = $db;
    }
    raw_redis('SELECT', 0);
    return '[' . implode(',', $found) . ']';
}
$cases = [
    'path /3' => ["redis://$host:$port/3", []],
    'path /3 beats option 5' => ["redis://$host:$port/3", ['database' => 5]],
    'query db=7 beats option 5' => ["redis://$host:$port?db=7", ['database' => 5]],
    'option 5 alone' => ["redis://$host:$port", ['database' => 5]],
    'nothing: db 0' => ["redis://$host:$port", []],
];
$i = 0;
foreach ($cases as $label => [$uri, $opts]) {
    $d = new DistLock($uri, $opts + ['prefix' => 'phpt_011:']);
    $l = $d->lock("k$i");
    echo "$label: ", where("phpt_011:k$i"), "\n";
    var_dump($l->isAcquired(), $l->release());
    echo "after release: ", where("phpt_011:k$i"), "\n";
    $i++;
}
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
foreach ([0, 3, 5, 7] as $db) { raw_redis('SELECT', $db); raw_redis_del_prefix('phpt_011:'); }
?>
--EXPECT--
path /3: [3]
bool(true)
bool(true)
after release: []
path /3 beats option 5: [3]
bool(true)
bool(true)
after release: []
query db=7 beats option 5: [7]
bool(true)
bool(true)
after release: []
option 5 alone: [5]
bool(true)
bool(true)
after release: []
nothing: db 0: [0]
bool(true)
bool(true)
after release: []
