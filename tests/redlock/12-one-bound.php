<?php
require __DIR__ . '/redlock.inc';
require __DIR__ . '/../phpt/inc/proc.inc';
require __DIR__ . '/../phpt/inc/onebound.inc';
$timeout = 0.5;
$opts = fn($tag) => ['prefix' => "rl12:$tag:", 'timeout' => $timeout, 'watchdog' => false];
$make = fn($tag) => new DistLock(rl_uris(), $opts($tag));
$stop = fn() => rl_stop([0, 1, 2, 3, 4]);
$cont = fn() => rl_cont_all();
$held = fn($tag, $name) => (bool)array_filter(rl_values("rl12:$tag:$name"));
try {
    // a master that failed is skipped for 1 s (DL_QUORUM_DOWN_BACKOFF_US): each call meets them all stalled
    $backoff = fn() => usleep(1100000);
    ob_run($make, $stop, $cont, ob_ops(10.0, false), $timeout, $backoff);
    $backoff();
    ob_end_request($make, $stop, fn() => [$cont(), $backoff()], $held, [1, 5], $timeout);
    ob_sweep('$d = new DistLock(' . var_export(rl_uris(), true) . ', ' . var_export($opts('sweep'), true) . ');',
             $stop, $cont, $held, 5, $timeout);
} finally {
    rl_cont_all();
}
?>
