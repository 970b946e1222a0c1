// Answers Karmada's dependencies distributor gives to scenarios read as JSON lines from stdin:
// {"rounds": [{"customizations": [ResourceInterpreterCustomization...], "objects": [...],
// "bindings": [ResourceBinding...]}...]}. Each round is one state of the sources: the
// interpreter customizations, the resource templates the API server holds, and the
// ResourceBindings the detector and the scheduler keep for them (requirers with their schedule
// result, and the bindings policies made for dependencies). Prints one JSON line each:
// {"rounds": [{"bindings": [...], "errors": [...]}]}, every ResourceBinding the store holds
// once the round has settled (sorted by namespace and name, those being deleted left out), as
// {"name", "namespace", "labels", "annotations", "finalizers", "owner": "apiVersion/kind/name"
// of its controller, "spec"}, with what only the API server makes up left out (uids, resource
// versions, timestamps); a permanent id the harness generated reads "generated". "errors"
// holds what Reconcile returned, per requirer (one failing on a conflict runs again first, as
// the controller's work queue requeues it).
//
// Each round's templates get a resourceVersion as the API server gives them, and bindings whose
// controller is no longer among them are deleted, as the garbage collector deletes them. The round
// then writes its bindings as the detector would: a new one is created, a known one takes the
// round's spec (its requiredBy kept, as the detector keeps it, and its template's resourceVersion)
// and labels, annotations and finalizers merged over its own, and one no longer given is deleted
// (the binding controller letting its finalizer go). The distributor's own Reconcile, with
// Karmada's resource interpreter (the customizations' Lua scripts, then the native rules), then
// runs for each requirer its event filters let through, in the order of their names: a new binding
// with propagateDeps and a schedule result (CreateFunc), a changed spec with propagateDeps before
// or after (UpdateFunc: the API server bumps the generation), a deleted binding with propagateDeps
// (DeleteFunc), a requirer whose recorded dependencies match a resource template that was created,
// changed, relabelled or deleted in the round (its template event handler, through
// matchesWithBindingDependencies, which bench/karmada_dependencies_export.go exports), and then,
// until none is left, a requirer whose spec the distributor changed (UpdateFunc again: it is
// another requirer's dependency). The store is controller-runtime's fake client; new bindings get a
// permanent id as Karmada's ResourceBinding mutating webhook gives one; the informer cache and the
// dynamic client serve the round's templates.
//
// gitfleet's own harness for tests/detector/dependencies_oracle_scenarios.py, which builds it
// inside a Karmada checkout (the only place its vendored packages resolve) and removes it
// afterwards; it calls Karmada's API and holds none of Karmada's code.
package main

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	configv1alpha1 "github.com/karmada-io/karmada/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/dependenciesdistributor"
	"github.com/karmada-io/karmada/pkg/resourceinterpreter"
	"github.com/karmada-io/karmada/pkg/resourceinterpreter/customized/declarative"
	"github.com/karmada-io/karmada/pkg/resourceinterpreter/default/native"
	"github.com/karmada-io/karmada/pkg/util"
	"github.com/karmada-io/karmada/pkg/util/fedinformer/genericmanager"
	"github.com/karmada-io/karmada/pkg/util/fedinformer/keys"
	"github.com/karmada-io/karmada/pkg/util/gclient"
)

type round struct {
	Customizations []*configv1alpha1.ResourceInterpreterCustomization `json:"customizations"`
	Objects        []map[string]any                                   `json:"objects"`
	Bindings       []workv1alpha2.ResourceBinding                     `json:"bindings"`
}

type scenario struct {
	Rounds []round `json:"rounds"`
}

type boundView struct {
	Name        string                           `json:"name"`
	Namespace   string                           `json:"namespace"`
	Labels      map[string]string                `json:"labels,omitempty"`
	Annotations map[string]string                `json:"annotations,omitempty"`
	Finalizers  []string                         `json:"finalizers,omitempty"`
	Owner       string                           `json:"owner,omitempty"`
	Spec        workv1alpha2.ResourceBindingSpec `json:"spec"`
}

type roundAnswer struct {
	Bindings []boundView `json:"bindings"`
	Errors   []string    `json:"errors"`
}

type answer struct {
	Rounds []roundAnswer `json:"rounds"`
}

const generatedID = "generated"

// alwaysServed are the kinds the API server serves whether or not a scenario has one.
var alwaysServed = []schema.GroupVersionKind{
	{Version: "v1", Kind: "ConfigMap"},
	{Version: "v1", Kind: "Secret"},
	{Version: "v1", Kind: "ServiceAccount"},
	{Version: "v1", Kind: "PersistentVolumeClaim"},
	{Version: "v1", Kind: "Service"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"},
}

// clusterScoped are the kinds of the scenarios the API server serves without a namespace.
var clusterScoped = map[string]bool{"ClusterRole": true, "Namespace": true, "StorageClass": true}

func main() {
	serve(run)
}

// interpreter is Karmada's interpreter chain as far as the scenarios reach it: the
// customizations' Lua scripts first, then the native rules (no webhook, no third-party
// customization covers the scenarios' kinds).
type interpreter struct {
	resourceinterpreter.ResourceInterpreter
	lua    *declarative.ConfigurableInterpreter
	native *native.DefaultInterpreter
}

func (i *interpreter) HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) bool {
	return i.lua.HookEnabled(gvk, op) || i.native.HookEnabled(gvk, op)
}

func (i *interpreter) GetDependencies(object *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
	found, enabled, err := i.lua.GetDependencies(object)
	if err != nil || enabled {
		return found, err
	}
	return i.native.GetDependencies(object)
}

// informers serves the round's templates as the distributor's informer cache does.
type informers struct {
	genericmanager.SingleClusterInformerManager
	stores map[schema.GroupVersionResource]cache.Indexer
	client dynamic.Interface
}

func (m *informers) Lister(gvr schema.GroupVersionResource) cache.GenericLister {
	store, ok := m.stores[gvr]
	if !ok {
		store = cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		m.stores[gvr] = store
	}
	return cache.NewGenericLister(store, gvr.GroupResource())
}

func (m *informers) ForResource(schema.GroupVersionResource, cache.ResourceEventHandler) {}
func (m *informers) IsHandlerExist(schema.GroupVersionResource, cache.ResourceEventHandler) bool {
	return true
}
func (m *informers) IsInformerSynced(schema.GroupVersionResource) bool { return true }
func (m *informers) Start()                                            {}
func (m *informers) Stop()                                             {}
func (m *informers) Context() context.Context                          { return context.TODO() }
func (m *informers) GetClient() dynamic.Interface                      { return m.client }
func (m *informers) WaitForCacheSync() map[schema.GroupVersionResource]bool {
	return map[schema.GroupVersionResource]bool{}
}
func (m *informers) WaitForCacheSyncWithTimeout(time.Duration) map[schema.GroupVersionResource]bool {
	return map[schema.GroupVersionResource]bool{}
}

func resourceOf(gvk schema.GroupVersionKind) schema.GroupVersionResource {
	plural, _ := meta.UnsafeGuessKindToResource(gvk)
	return plural
}

// mapper knows every kind the scenario names, namespaced unless the API server serves it
// without a namespace.
func mapper(sc *scenario) meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	add := func(apiVersion, kind string) {
		gvk := schema.FromAPIVersionAndKind(apiVersion, kind)
		scope := meta.RESTScopeNamespace
		if clusterScoped[kind] {
			scope = meta.RESTScopeRoot
		}
		m.Add(gvk, scope)
	}
	for _, gvk := range alwaysServed {
		add(gvk.GroupVersion().String(), gvk.Kind)
	}
	for _, r := range sc.Rounds {
		for _, o := range r.Objects {
			u := unstructured.Unstructured{Object: o}
			add(u.GetAPIVersion(), u.GetKind())
		}
	}
	return m
}

func serveTemplates(m *informers, objects []map[string]any) {
	m.stores = map[schema.GroupVersionResource]cache.Indexer{}
	listKinds := map[schema.GroupVersionResource]string{}
	var served []runtime.Object
	for _, o := range objects {
		u := &unstructured.Unstructured{Object: o}
		gvr := resourceOf(u.GroupVersionKind())
		m.Lister(gvr)
		_ = m.stores[gvr].Add(u.DeepCopy())
		listKinds[gvr] = u.GetKind() + "List"
		served = append(served, u.DeepCopy())
	}
	for _, gvk := range alwaysServed {
		listKinds[resourceOf(gvk)] = gvk.Kind + "List"
	}
	m.client = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds, served...)
}

func run(sc *scenario) (answer, error) {
	c := fake.NewClientBuilder().WithScheme(gclient.NewSchema()).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if rb, ok := obj.(*workv1alpha2.ResourceBinding); ok && rb.Labels[workv1alpha2.ResourceBindingPermanentIDLabel] == "" {
				if rb.Labels == nil {
					rb.Labels = map[string]string{}
				}
				rb.Labels[workv1alpha2.ResourceBindingPermanentIDLabel] = generatedID
			}
			return c.Create(ctx, obj, opts...)
		},
	}).Build()
	m := &informers{}
	d := &dependenciesdistributor.DependenciesDistributor{
		Client:          c,
		InformerManager: m,
		EventRecorder:   &record.FakeRecorder{},
		RESTMapper:      mapper(sc),
	}
	var a answer
	var before []map[string]any
	given := map[types.NamespacedName]bool{}
	versions := map[string]versioned{}
	for _, r := range sc.Rounds {
		lua := declarative.NewConfigurableInterpreter(nil)
		lua.LoadConfig(r.Customizations)
		d.ResourceInterpreter = &interpreter{lua: lua, native: native.NewDefaultInterpreter()}
		stamp(r.Objects, versions)
		serveTemplates(m, r.Objects)
		d.DynamicClient = m.client
		if err := collectGarbage(c, r.Objects); err != nil {
			return a, err
		}
		due, err := write(c, r.Bindings, given, versions)
		if err != nil {
			return a, err
		}
		woken, err := wokenByTemplates(c, before, r.Objects)
		if err != nil {
			return a, err
		}
		for k := range woken {
			due[k] = true
		}
		ra := roundAnswer{Errors: []string{}}
		// A requirer whose spec the distributor itself changed (its requiredBy, as the
		// dependency of another) has a new generation too, and is reconciled in turn.
		for pass := 0; len(due) > 0; pass++ {
			if pass == 5 {
				return a, fmt.Errorf("no steady state")
			}
			specs, err := propagatingSpecs(c)
			if err != nil {
				return a, err
			}
			for _, k := range sortedKeys(due) {
				if err := reconcileRequeued(d, k); err != nil {
					ra.Errors = append(ra.Errors, k.Name+": "+err.Error())
				}
			}
			after, err := propagatingSpecs(c)
			if err != nil {
				return a, err
			}
			due = map[types.NamespacedName]bool{}
			for k, spec := range after {
				if old, ok := specs[k]; ok && !reflect.DeepEqual(old, spec) {
					due[k] = true
				}
			}
		}
		if ra.Bindings, err = view(c); err != nil {
			return a, err
		}
		a.Rounds = append(a.Rounds, ra)
		before = r.Objects
	}
	return a, nil
}

// reconcileRequeued runs the distributor's Reconcile for k, and runs it again while it fails
// on a conflict, as the controller's work queue requeues a key whose Reconcile failed: a
// requirer that is its own dependency updates its binding, then writes the copy it read before
// (removing its finalizer, say), which the API server refuses as modified; the next Reconcile
// reads the binding anew. Other errors are kept: they come back on every try.
func reconcileRequeued(d *dependenciesdistributor.DependenciesDistributor, k types.NamespacedName) error {
	var err error
	for try := 0; try < 3; try++ {
		if _, err = d.Reconcile(context.TODO(), reconcile.Request{NamespacedName: k}); !apierrors.IsConflict(err) {
			return err
		}
	}
	return err
}

// versioned is a template as the API server last stored it, and its resourceVersion.
type versioned struct {
	object  map[string]any
	version int
}

func templateKey(apiVersion, kind, namespace, name string) string {
	return apiVersion + "/" + kind + "/" + namespace + "/" + name
}

// stamp gives the round's templates the resourceVersion the API server gives them: a new one
// for a template created or changed since the previous round.
func stamp(objects []map[string]any, versions map[string]versioned) {
	for _, o := range objects {
		u := &unstructured.Unstructured{Object: o}
		k := templateKey(u.GetAPIVersion(), u.GetKind(), u.GetNamespace(), u.GetName())
		old, ok := versions[k]
		if !ok || !reflect.DeepEqual(old.object, o) {
			old = versioned{object: runtime.DeepCopyJSON(o), version: old.version + 1}
			versions[k] = old
		}
		u.SetResourceVersion(fmt.Sprint(old.version))
	}
}

// collectGarbage deletes the bindings whose controller is no longer among the templates, as
// Kubernetes' garbage collector does (and the binding controller lets them go: its finalizer
// is removed).
func collectGarbage(c client.Client, objects []map[string]any) error {
	uids := map[types.UID]bool{}
	for _, o := range objects {
		uids[(&unstructured.Unstructured{Object: o}).GetUID()] = true
	}
	list := &workv1alpha2.ResourceBindingList{}
	if err := c.List(context.TODO(), list); err != nil {
		return err
	}
	for i := range list.Items {
		b := &list.Items[i]
		if owner := metav1.GetControllerOfNoCopy(b); owner != nil && !uids[owner.UID] && b.DeletionTimestamp.IsZero() {
			if controllerutil.RemoveFinalizer(b, util.BindingControllerFinalizer) {
				if err := c.Update(context.TODO(), b); err != nil {
					return err
				}
			}
			if err := c.Delete(context.TODO(), b); err != nil {
				return err
			}
		}
	}
	return nil
}

func sortedKeys(set map[types.NamespacedName]bool) []types.NamespacedName {
	var order []types.NamespacedName
	for k := range set {
		order = append(order, k)
	}
	sort.Slice(order, func(i, j int) bool { return order[i].String() < order[j].String() })
	return order
}

// propagatingSpecs are the specs of the stored bindings with propagateDeps, by key.
func propagatingSpecs(c client.Client) (map[types.NamespacedName]workv1alpha2.ResourceBindingSpec, error) {
	list := &workv1alpha2.ResourceBindingList{}
	if err := c.List(context.TODO(), list); err != nil {
		return nil, err
	}
	specs := map[types.NamespacedName]workv1alpha2.ResourceBindingSpec{}
	for i := range list.Items {
		if b := &list.Items[i]; b.Spec.PropagateDeps && b.DeletionTimestamp.IsZero() {
			specs[client.ObjectKeyFromObject(b)] = *b.Spec.DeepCopy()
		}
	}
	return specs, nil
}

// write stores the round's bindings as the detector and the scheduler write them (with the
// resourceVersion of their template), and tells which requirers the distributor's binding
// event filters let through.
func write(c client.Client, bindings []workv1alpha2.ResourceBinding, given map[types.NamespacedName]bool, versions map[string]versioned) (map[types.NamespacedName]bool, error) {
	ctx := context.TODO()
	due := map[types.NamespacedName]bool{}
	now := map[types.NamespacedName]bool{}
	for i := range bindings {
		b := bindings[i].DeepCopy()
		r := &b.Spec.Resource
		if v, ok := versions[templateKey(r.APIVersion, r.Kind, r.Namespace, r.Name)]; ok {
			r.ResourceVersion = fmt.Sprint(v.version)
		}
		k := client.ObjectKeyFromObject(b)
		now[k] = true
		old := &workv1alpha2.ResourceBinding{}
		err := c.Get(ctx, k, old)
		if err != nil {
			if err := c.Create(ctx, b); err != nil {
				return nil, err
			}
			if b.Spec.PropagateDeps && len(b.Spec.Clusters) > 0 {
				due[k] = true
			}
			continue
		}
		spec := b.Spec.DeepCopy()
		spec.RequiredBy = old.Spec.RequiredBy
		changed := !reflect.DeepEqual(*spec, old.Spec)
		wasDeps := old.Spec.PropagateDeps
		old.Spec = *spec
		old.Labels = merged(old.Labels, b.Labels)
		old.Annotations = merged(old.Annotations, b.Annotations)
		for _, f := range b.Finalizers {
			controllerutil.AddFinalizer(old, f)
		}
		if err := c.Update(ctx, old); err != nil {
			return nil, err
		}
		if changed && (wasDeps || spec.PropagateDeps) {
			due[k] = true
		}
	}
	for k := range given {
		if now[k] {
			continue
		}
		old := &workv1alpha2.ResourceBinding{}
		if err := c.Get(ctx, k, old); err != nil {
			continue
		}
		if controllerutil.RemoveFinalizer(old, util.BindingControllerFinalizer) {
			if err := c.Update(ctx, old); err != nil {
				return nil, err
			}
		}
		if err := c.Delete(ctx, old); err != nil {
			return nil, err
		}
		if old.Spec.PropagateDeps {
			due[k] = true
		}
	}
	for k := range now {
		given[k] = true
	}
	return due, nil
}

func merged(into, from map[string]string) map[string]string {
	if len(from) == 0 {
		return into
	}
	if into == nil {
		into = map[string]string{}
	}
	for k, v := range from {
		into[k] = v
	}
	return into
}

// wokenByTemplates tells which requirers the template events of the round wake up: a template
// created, deleted, or changed (with its old labels too when they changed).
func wokenByTemplates(c client.Client, before, after []map[string]any) (map[types.NamespacedName]bool, error) {
	index := func(objects []map[string]any) map[string]*unstructured.Unstructured {
		found := map[string]*unstructured.Unstructured{}
		for _, o := range objects {
			u := &unstructured.Unstructured{Object: o}
			found[u.GetAPIVersion()+"/"+u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()] = u
		}
		return found
	}
	old, now := index(before), index(after)
	var events []*unstructured.Unstructured
	for k, o := range old {
		n, ok := now[k]
		switch {
		case !ok:
			events = append(events, o)
		case !reflect.DeepEqual(o.Object, n.Object):
			if !reflect.DeepEqual(o.GetLabels(), n.GetLabels()) {
				events = append(events, o)
			}
			events = append(events, n)
		}
	}
	for k, n := range now {
		if _, ok := old[k]; !ok {
			events = append(events, n)
		}
	}
	woken := map[types.NamespacedName]bool{}
	for _, e := range events {
		key, err := keys.ClusterWideKeyFunc(e)
		if err != nil {
			return nil, err
		}
		labelsKey := &dependenciesdistributor.LabelsKey{ClusterWideKey: key, Labels: e.GetLabels()}
		list := &workv1alpha2.ResourceBindingList{}
		if err := c.List(context.TODO(), list, client.InNamespace(e.GetNamespace())); err != nil {
			return nil, err
		}
		for i := range list.Items {
			b := &list.Items[i]
			if !b.DeletionTimestamp.IsZero() {
				continue
			}
			if matched, err := dependenciesdistributor.GitfleetDependedOn(labelsKey, b); err == nil && matched {
				woken[client.ObjectKeyFromObject(b)] = true
			}
		}
	}
	return woken, nil
}

func view(c client.Client) ([]boundView, error) {
	list := &workv1alpha2.ResourceBindingList{}
	if err := c.List(context.TODO(), list); err != nil {
		return nil, err
	}
	found := []boundView{}
	for i := range list.Items {
		b := &list.Items[i]
		if !b.DeletionTimestamp.IsZero() {
			continue
		}
		v := boundView{
			Name:        b.Name,
			Namespace:   b.Namespace,
			Labels:      b.Labels,
			Annotations: b.Annotations,
			Finalizers:  b.Finalizers,
			Spec:        *b.Spec.DeepCopy(),
		}
		if owner := metav1.GetControllerOfNoCopy(b); owner != nil {
			v.Owner = owner.APIVersion + "/" + owner.Kind + "/" + owner.Name
		}
		v.Spec.Resource.UID = ""
		v.Spec.Resource.ResourceVersion = ""
		found = append(found, v)
	}
	sort.Slice(found, func(i, j int) bool {
		if found[i].Namespace != found[j].Namespace {
			return found[i].Namespace < found[j].Namespace
		}
		return found[i].Name < found[j].Name
	})
	return found, nil
}
