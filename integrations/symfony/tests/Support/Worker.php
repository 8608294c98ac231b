<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests\Support;

/**
 * A separate PHP process running tests/worker.php (a fresh request: its own
 * connections, its own request end). Talks by lines on stdout.
 */
final class Worker
{
    /** @var resource */
    private $proc;
    /** @var resource */
    private $out;
    private string $buf = '';

    /** @param list<string> $args */
    public function __construct(string ...$args)
    {
        $cmd = [PHP_BINARY];
        if (($so = getenv('DISTLOCK_SO')) !== false && $so !== '') {
            $cmd[] = '-d';
            $cmd[] = 'extension=' . $so;
        }
        $cmd[] = dirname(__DIR__) . '/worker.php';
        array_push($cmd, ...$args);
        $proc = proc_open($cmd, [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => STDERR], $pipes);
        if ($proc === false) {
            throw new \RuntimeException('cannot start ' . implode(' ', $cmd));
        }
        fclose($pipes[0]);
        $this->proc = $proc;
        $this->out = $pipes[1];
        stream_set_blocking($this->out, false);
    }

    /** The next line the worker prints, without "\n"; fails after $timeout seconds or at its exit. */
    public function line(float $timeout = 10.0): string
    {
        $deadline = microtime(true) + $timeout;
        while (($nl = strpos($this->buf, "\n")) === false) {
            $left = $deadline - microtime(true);
            if ($left <= 0) {
                throw new \RuntimeException("worker printed no line within {$timeout} s");
            }
            $r = [$this->out];
            $w = $e = null;
            if (@stream_select($r, $w, $e, (int) $left, (int) (fmod($left, 1.0) * 1e6)) > 0) {
                $chunk = fread($this->out, 65536);
                if ($chunk === '' || $chunk === false) {
                    if (feof($this->out)) {
                        throw new \RuntimeException('worker exited before printing a line (output so far: ' . $this->buf . ')');
                    }
                    continue;
                }
                $this->buf .= $chunk;
            }
        }
        $line = substr($this->buf, 0, $nl);
        $this->buf = substr($this->buf, $nl + 1);

        return $line;
    }

    /** Sends $signal (e.g. 9, SIGKILL) to the worker. */
    public function kill(int $signal): void
    {
        proc_terminate($this->proc, $signal);
    }

    /** Waits for the worker's end; returns its exit code. */
    public function wait(float $timeout = 60.0): int
    {
        $deadline = microtime(true) + $timeout;
        while (true) {
            $st = proc_get_status($this->proc);
            if (!$st['running']) {
                fclose($this->out);
                proc_close($this->proc);

                return $st['exitcode'];
            }
            if (microtime(true) > $deadline) {
                proc_terminate($this->proc, 9);
                throw new \RuntimeException("worker still running after {$timeout} s");
            }
            usleep(5000);
        }
    }
}
