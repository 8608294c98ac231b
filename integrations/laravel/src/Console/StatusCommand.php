<?php

declare(strict_types=1);

namespace DistLock\Laravel\Console;

use Illuminate\Console\Command;

/**
 * php artisan distlock:status {name} [--store=NAME] [--watch [--interval=S] [--count=N]]
 * Held or free, whatever holds it (DistLock::status(): a mutex, a
 * readers-writer lock's exclusive or shared holders, a semaphore, or a key
 * distlock did not write), the lease left (the longest of the holders'),
 * the waiters of every queue, the holders and the permits in use. The
 * owner token is a bearer credential for release: only its first 4
 * characters are shown, and only for an exclusive holder (a mutex, a
 * writer): shared holders and a semaphore's have no single owner.
 *
 *     cmd: held, 19.998 s left, 0 waiter(s); mutex, 1 holder, owner 3f2a…
 *     catalogue: held, 29.412 s left, 1 waiter(s); shared, 2 holders
 *     render: held, 9.870 s left, 0 waiter(s); semaphore, 2 holders, 3 permits in use
 *     cmd: free, 0 waiter(s)
 *
 * --watch redraws it every --interval seconds (like watch(1): a header line
 * with the time, the screen cleared between frames when the output is a
 * terminal, or with --ansi) until SIGINT/SIGTERM or --count frames.
 */
class StatusCommand extends Command
{
    use ResolvesClient;

    protected $signature = 'distlock:status {name : lock name (without prefix)}
        {--store= : a distlock cache store; its lock names are those of Cache::store(NAME)->lock()}
        {--watch : redraw the status every --interval seconds until Ctrl-C}
        {--interval=2 : seconds between two frames of --watch (above 0; fractions allowed)}
        {--count= : with --watch, stop after this many frames}';

    protected $description = 'Show whether a distlock lock is held, by what kind of holder, its remaining lease and its waiters';

    /** ANSI: cursor home, clear screen (what watch(1) and `clear` send). */
    private const CLEAR = "\033[H\033[2J";

    /** Set by the SIGINT/SIGTERM handler of --watch. */
    private bool $stopWatching = false;

    public function handle(): int
    {
        return $this->reporting(fn (): int => $this->option('watch') ? $this->watch() : $this->showStatus($this->lockClient()));
    }

    private function showStatus(\DistLock $client): int
    {
        $this->line($this->statusLine($client, (string) $this->argument('name')));
        return 0;
    }

    /** One line: the status of $name on $client. @throws \DistLock\Exception on network errors */
    private function statusLine(\DistLock $client, string $name): string
    {
        $status = $client->status($name);
        if (!$status['locked']) {
            return "$name: free, {$status['waiters']} waiter(s)";
        }
        $left = is_infinite($status['ttl']) ? 'no expiry' : sprintf('%.3f s left', $status['ttl']);
        $kind = $status['kind'] ?? 'held';
        $holders = (int) $status['holders'];
        $line = sprintf('%s: held, %s, %d waiter(s); %s, %d holder%s', $name, $left, $status['waiters'], $kind,
            $holders, $holders === 1 ? '' : 's');
        if ($kind === 'semaphore') {
            $line .= sprintf(', %d permit%s in use', $status['permits'], $status['permits'] === 1 ? '' : 's');
        }
        if ($kind === 'mutex' || $kind === 'exclusive') {
            $owner = $client->owner($name);
            $line .= $owner === null ? '' : ', owner ' . substr($owner, 0, 4) . '…';
        }
        return $line;
    }

    /**
     * --watch: a frame every --interval seconds. A bad --store or option fails at once; a
     * network error during the watch is shown in its frame and the next frame tries again
     * (a Redis restart is what one may be watching).
     */
    private function watch(): int
    {
        $interval = filter_var($this->option('interval'), FILTER_VALIDATE_FLOAT);
        if ($interval === false || !is_finite($interval) || $interval <= 0) {
            throw new \InvalidArgumentException('The --interval option must be a number of seconds above 0.');
        }
        $count = $this->option('count');
        if ($count !== null) {
            $count = filter_var($count, FILTER_VALIDATE_INT, ['options' => ['min_range' => 1]]);
            if ($count === false) {
                throw new \InvalidArgumentException('The --count option must be a whole number of frames, 1 or more.');
            }
        }
        $client = $this->lockClient();
        $name = (string) $this->argument('name');
        $restore = $this->trapStopSignals();
        try {
            $clear = $this->output->isDecorated();
            for ($frame = 1; !$this->stopWatching; $frame++) {
                if ($frame > 1) {
                    $this->output->write($clear ? self::CLEAR : PHP_EOL);
                }
                $this->line(sprintf('Every %ss: distlock:status %s    %s', $this->seconds($interval), $name, date('Y-m-d H:i:s')));
                try {
                    $this->line($this->statusLine($client, $name));
                } catch (\DistLock\Exception $e) {
                    $this->error($e->getMessage());
                }
                if ($count !== null && $frame >= $count) {
                    break;
                }
                $this->sleepUnlessStopped($interval);
            }
        } finally {
            $restore();
        }
        return 0;
    }

    /** Sleeps $seconds in slices of at most 0.1 s, so that a stop signal ends it soon. */
    private function sleepUnlessStopped(float $seconds): void
    {
        $until = hrtime(true) + (int) ($seconds * 1e9);
        while (!$this->stopWatching && ($left = $until - hrtime(true)) > 0) {
            usleep((int) min(100000, intdiv($left, 1000) + 1));
        }
    }

    /**
     * SIGINT and SIGTERM end the watch after the current frame (exit code 0) where
     * ext-pcntl is loaded; elsewhere they end the process as usual. Laravel's own
     * trap() is 9.x+: this runs on 8 too. Returns what puts the previous handlers back.
     */
    private function trapStopSignals(): \Closure
    {
        if (!function_exists('pcntl_signal') || !function_exists('pcntl_async_signals')) {
            return static function (): void {};
        }
        $async = pcntl_async_signals(true);
        $previous = [];
        foreach ([SIGINT, SIGTERM] as $signal) {
            $previous[$signal] = pcntl_signal_get_handler($signal);
            pcntl_signal($signal, function (): void { $this->stopWatching = true; });
        }
        return static function () use ($previous, $async): void {
            foreach ($previous as $signal => $handler) {
                pcntl_signal($signal, $handler);
            }
            pcntl_async_signals($async);
        };
    }

    private function seconds(float $s): string
    {
        return rtrim(rtrim(sprintf('%.3f', $s), '0'), '.');
    }
}
