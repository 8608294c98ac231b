<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests\ProfilerApp;

use DistLock\Symfony\DistLockBundle;
use DistLock\Symfony\DistLockStore;
use Symfony\Bundle\FrameworkBundle\FrameworkBundle;
use Symfony\Bundle\FrameworkBundle\Kernel\MicroKernelTrait;
use Symfony\Bundle\TwigBundle\TwigBundle;
use Symfony\Bundle\WebProfilerBundle\WebProfilerBundle;
use Symfony\Component\DependencyInjection\Loader\Configurator\ContainerConfigurator;
use Symfony\Component\HttpKernel\Kernel as BaseKernel;
use Symfony\Component\Lock\LockFactory;
use Symfony\Component\Routing\Loader\Configurator\RoutingConfigurator;

use function Symfony\Component\DependencyInjection\Loader\Configurator\service;

/**
 * The smallest Symfony application with the Web Profiler and DistLockBundle,
 * for the browser test of the "Locks" panel (tests/profiler/run.sh,
 * ProfilerPanelTest). Environments: 'dev' (profiler and toolbar on) and
 * 'prod' (no profiler: the bundle registers nothing).
 *
 * Environment: DISTLOCK_TEST_REDIS (the server), DISTLOCK_PROFILER_VAR (cache
 * and log folder, default the system's temp dir).
 */
final class Kernel extends BaseKernel
{
    use MicroKernelTrait;

    public function registerBundles(): iterable
    {
        yield new FrameworkBundle();
        yield new TwigBundle();
        if ($this->getEnvironment() === 'dev') {
            yield new WebProfilerBundle();
        }
        yield new DistLockBundle();
    }

    public function getProjectDir(): string
    {
        return __DIR__;
    }

    public function getCacheDir(): string
    {
        return self::varDir() . '/cache/' . $this->getEnvironment();
    }

    public function getLogDir(): string
    {
        return self::varDir() . '/log';
    }

    private static function varDir(): string
    {
        return getenv('DISTLOCK_PROFILER_VAR') ?: sys_get_temp_dir() . '/distlock-profiler-app';
    }

    protected function configureContainer(ContainerConfigurator $container): void
    {
        $dev = $this->getEnvironment() === 'dev';
        $framework = [
            'secret' => 'distlock-profiler-test',
            'test' => false,
            'http_method_override' => false,
            'handle_all_throwables' => true,
            'php_errors' => ['log' => true],
            'router' => ['utf8' => true],
            'profiler' => ['enabled' => $dev, 'collect' => true, 'only_exceptions' => false],
        ];
        // The Scheduler component installed (the Symfony 8 tests use it) makes
        // the bundle enable its scheduler, which needs Messenger: not here.
        if (class_exists(\Symfony\Component\Scheduler\Schedule::class)) {
            $framework['scheduler'] = ['enabled' => false];
        }
        $container->extension('framework', $framework);
        $container->extension('twig', ['strict_variables' => true]);
        if ($dev) {
            $container->extension('web_profiler', ['toolbar' => true, 'intercept_redirects' => false]);
        }

        $services = $container->services()->defaults()->autowire()->autoconfigure();
        // The store as the package's README wires it: from the server URI (prefix '').
        $services->set(DistLockStore::class)->args(['%env(DISTLOCK_TEST_REDIS)%']);
        $services->set(LockFactory::class)->args([service(DistLockStore::class)]);
        $services->set(LockController::class)->public()->tag('controller.service_arguments');
    }

    protected function configureRoutes(RoutingConfigurator $routes): void
    {
        $routes->add('locks', '/locks')->controller([LockController::class, 'locks']);
        $routes->add('observers', '/observers')->controller([LockController::class, 'observers']);
        if ($this->getEnvironment() === 'dev') {
            $routes->import('@WebProfilerBundle/Resources/config/routing/wdt.php')->prefix('/_wdt');
            $routes->import('@WebProfilerBundle/Resources/config/routing/profiler.php')->prefix('/_profiler');
        }
    }
}
