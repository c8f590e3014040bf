package deploy

import (
	"fmt"
	"go/constant"
	"go/types"
	"os/exec"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

const (
	module      = "github.com/sfnapprovals/approvals"
	sdk         = "github.com/aws/aws-sdk-go-v2/service/"
	slackPkg    = "github.com/slack-go/slack"
	slackEvents = "github.com/slack-go/slack/slackevents"
)

// operatorOnly are functions whose calls run with an operator's
// credentials, never a deployed role's: the call graph is cut at them.
// dynamo.CreateTable is reached only by `approvals-bot -create-table`,
// which an operator runs against a development table; production creates
// the table from the template.
var operatorOnly = []string{module + "/workflow/dynamo.CreateTable"}

// call is one AWS API operation a binary can make.
type call struct {
	Service string // the SDK package: dynamodb, sfn, …
	Op      string // the client method: PutItem, Query, …
}

func (c call) String() string { return c.Service + "." + c.Op }

// usage is what a binary can ask AWS for: the operations reachable from
// main on the clients it constructs, and the details of their inputs that
// decide the IAM action or resource.
type usage struct {
	Calls []call
	// Clients are the SDK services whose clients the binary constructs.
	Clients []string
	// QueryIndexes are the IndexName values of reachable Query inputs; ""
	// stands for a Query on the table itself.
	QueryIndexes []string
	// TransactWrites are the kinds of reachable TransactWriteItem
	// members: Put, Update, Delete, ConditionCheck.
	TransactWrites []string
	// Problems are constructs the analysis cannot see through, such as an
	// IndexName that is not a constant.
	Problems []string
	// SlackMethods are the reachable methods of *slack.Client (Web API
	// calls), called directly or through a module interface.
	SlackMethods []string
	// SlackEvents are the slackevents types reachable code asserts an
	// inner event to (*slackevents.AppHomeOpenedEvent, …).
	SlackEvents []string
}

// loadProgram type-checks the module's packages that the binaries link
// from source and everything else from export data, and builds the SSA
// form of the module's code; deps lists each main's module packages.
// Outside the module only signatures are known: see analyze for how
// calls through them are treated.
func loadProgram(mains ...string) (prog *ssa.Program, byPath map[string]*ssa.Package, deps map[string][]string, err error) {
	deps, err = moduleDeps(mains)
	if err != nil {
		return nil, nil, nil, err
	}
	var roots []string
	for _, ds := range deps {
		roots = append(roots, ds...)
	}
	slices.Sort(roots)
	roots = slices.Compact(roots)
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedImports | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo,
		Dir:  "..",
	}
	pkgs, err := packages.Load(cfg, roots...)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("load %v: %w", mains, err)
	}
	var errs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
	})
	if len(errs) > 0 {
		return nil, nil, nil, fmt.Errorf("load %v: %s", mains, strings.Join(errs, "; "))
	}
	prog, ssaPkgs := ssautil.Packages(pkgs, ssa.InstantiateGenerics)
	prog.Build()
	byPath = map[string]*ssa.Package{}
	for _, p := range ssaPkgs {
		byPath[p.Pkg.Path()] = p
	}
	return prog, byPath, deps, nil
}

// moduleDeps lists, for each main package, the module's packages it
// links, itself included.
func moduleDeps(mains []string) (map[string][]string, error) {
	deps := map[string][]string{}
	for _, m := range mains {
		cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", m)
		cmd.Dir = ".."
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go list -deps %s: %w", m, err)
		}
		for _, p := range strings.Fields(string(out)) {
			if p == module || strings.HasPrefix(p, module+"/") {
				deps[m] = append(deps[m], p)
			}
		}
	}
	return deps, nil
}

// analyze derives the AWS usage of one binary from the SSA of the
// module's packages it links (pkgs; main among them): a rapid type
// analysis from main and the package initialisers that never enters
// operatorOnly functions. Code outside the module has no bodies here, so
// a function or method it might call back is taken as reachable once
// reachable module code hands it out: every function literal and function
// value, and every method of a module type converted to an interface.
// Calls the SDK makes on a client the module hands it are the operation
// named by the parameter's type (NewQueryPaginator(client
// QueryAPIClient, …) calls Query); an interface call resolves to the
// operation of each constructed client that implements the interface.
func analyze(prog *ssa.Program, pkgs []*ssa.Package) usage {
	a := &analysis{prog: prog, reached: map[*ssa.Function]bool{}, clients: map[string]types.Type{}, calls: map[call]bool{}}
	for _, p := range pkgs {
		if f := p.Func("init"); f != nil {
			a.reach(f)
		}
		if p.Pkg.Name() == "main" {
			a.reach(p.Func("main"))
		}
	}
	// Interface calls seen before the client they resolve to was
	// constructed are resolved again until nothing changes.
	for changed := true; changed; {
		changed = false
		for len(a.queue) > 0 {
			f := a.queue[0]
			a.queue = a.queue[1:]
			a.visit(f)
		}
		for _, inv := range a.invokes {
			if a.slackClient != nil && types.Implements(a.slackClient, inv.iface) && !slices.Contains(a.SlackMethods, inv.method) {
				a.SlackMethods = append(a.SlackMethods, inv.method)
				changed = true
			}
			for svc, client := range a.clients {
				if types.Implements(client, inv.iface) && !a.calls[call{svc, inv.method}] {
					a.calls[call{svc, inv.method}] = true
					changed = true
				}
			}
			for _, t := range a.runtime {
				if types.Implements(t, inv.iface) {
					sel := a.prog.MethodSets.MethodSet(t).Lookup(inv.pkg, inv.method)
					if f := a.prog.MethodValue(sel); f != nil && !a.reached[f] {
						a.reach(f)
						changed = true
					}
				}
			}
		}
		for _, iface := range a.escaped {
			for _, t := range a.runtime {
				if types.Implements(t, iface) {
					a.reachMethods(t)
				}
			}
		}
		changed = changed || len(a.queue) > 0
	}
	a.resolveIndexParams()
	u := a.usage
	for svc := range a.clients {
		u.Clients = append(u.Clients, svc)
	}
	for c := range a.calls {
		u.Calls = append(u.Calls, c)
	}
	sortUsage(&u)
	return u
}

type invoke struct {
	iface  *types.Interface
	pkg    *types.Package // of the method, if unexported
	method string
}

type analysis struct {
	usage
	// indexParams are IndexNames passed in as a parameter of the function
	// that builds the input: resolved, once the graph is complete, from
	// the arguments of the reachable calls of that function.
	indexParams []*ssa.Parameter
	prog        *ssa.Program
	reached     map[*ssa.Function]bool
	queue       []*ssa.Function
	clients     map[string]types.Type // SDK service → *<service>.Client, once constructed
	calls       map[call]bool
	invokes     []invoke
	// runtime are the module's types converted to the module's
	// interfaces: what an interface call in module code may reach.
	runtime []types.Type
	// escaped are module interfaces converted to outside ones: outside
	// code may call any method of what they hold.
	escaped []*types.Interface
	// slackClient is *slack.Client once reachable code calls a method of
	// it, so interface calls can be resolved to it.
	slackClient types.Type
}

func (a *analysis) reach(f *ssa.Function) {
	if f == nil || a.reached[f] || slices.Contains(operatorOnly, qualifiedName(f)) {
		return
	}
	a.reached[f] = true
	if inModule(f) || (f.Synthetic != "" && f.Blocks != nil) {
		a.queue = append(a.queue, f)
	}
	for _, anon := range f.AnonFuncs {
		a.reach(anon)
	}
}

// reachMethods reaches every method of t and *t.
func (a *analysis) reachMethods(t types.Type) {
	for _, t := range []types.Type{t, types.NewPointer(t)} {
		if _, ok := t.Underlying().(*types.Interface); ok {
			continue
		}
		ms := a.prog.MethodSets.MethodSet(t)
		for i := range ms.Len() {
			a.reach(a.prog.MethodValue(ms.At(i)))
		}
	}
}

func (a *analysis) visit(f *ssa.Function) {
	if inModule(f) {
		a.inspectInputs(f)
	}
	for _, b := range f.Blocks {
		for _, instr := range b.Instrs {
			if c, ok := instr.(ssa.CallInstruction); ok {
				a.visitCall(c.Common())
			}
			switch v := instr.(type) {
			case *ssa.MakeInterface:
				if named := namedOf(v.X.Type()); named != nil && inModulePkg(named.Obj().Pkg()) {
					if moduleInterface(v.Type()) {
						a.runtime = append(a.runtime, v.X.Type())
					} else {
						a.reachMethods(named)
					}
				}
			case *ssa.ChangeInterface:
				if moduleInterface(v.X.Type()) && !moduleInterface(v.Type()) {
					a.escaped = append(a.escaped, v.X.Type().Underlying().(*types.Interface))
				}
			case *ssa.MakeClosure:
				a.reach(v.Fn.(*ssa.Function))
			case *ssa.TypeAssert:
				if named := namedOf(v.AssertedType); named != nil && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == slackEvents {
					a.SlackEvents = append(a.SlackEvents, named.Obj().Name())
				}
			}
			for _, op := range instr.Operands(nil) {
				if fn, ok := (*op).(*ssa.Function); ok {
					a.reach(fn) // a function value, or a callee (visited as such)
				}
			}
		}
	}
}

func (a *analysis) visitCall(c *ssa.CallCommon) {
	if c.IsInvoke() {
		a.invokes = append(a.invokes, invoke{iface: c.Value.Type().Underlying().(*types.Interface), pkg: c.Method.Pkg(), method: c.Method.Name()})
		return
	}
	callee := c.StaticCallee()
	if callee == nil {
		return
	}
	if recv := slackClientMethod(callee); recv != nil {
		a.slackClient = recv
		a.SlackMethods = append(a.SlackMethods, callee.Name())
		return
	}
	svc, ok := sdkService(callee.Pkg)
	if !ok {
		return
	}
	if op, ok := operation(callee); ok {
		a.calls[call{svc, op}] = true
		return
	}
	if callee.Signature.Recv() != nil {
		return
	}
	if callee.Name() == "New" || callee.Name() == "NewFromConfig" {
		a.clients[svc] = callee.Signature.Results().At(0).Type()
		return
	}
	if params := callee.Signature.Params(); params.Len() > 0 {
		if named := namedOf(params.At(0).Type()); named != nil {
			if op, ok := strings.CutSuffix(named.Obj().Name(), "APIClient"); ok {
				a.calls[call{svc, op}] = true
			}
		}
	}
}

// slackClientMethod returns *slack.Client if f is one of its exported
// methods, nil otherwise.
func slackClientMethod(f *ssa.Function) types.Type {
	recv := f.Signature.Recv()
	if recv == nil || f.Pkg == nil || f.Pkg.Pkg.Path() != slackPkg || f.Object() == nil || !f.Object().Exported() {
		return nil
	}
	if named := namedOf(recv.Type()); named != nil && named.Obj().Name() == "Client" {
		return recv.Type()
	}
	return nil
}

// moduleInterface reports whether t is an interface type the module
// declares.
func moduleInterface(t types.Type) bool {
	named, ok := t.(*types.Named)
	return ok && inModulePkg(named.Obj().Pkg())
}

// namedOf returns the named type of t or *t.
func namedOf(t types.Type) *types.Named {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := t.(*types.Named)
	return n
}

// operation returns the name of the API operation f is, if it is one: an
// exported method of *<service>.Client taking (context, *<Op>Input,
// ...func(*Options)).
func operation(f *ssa.Function) (string, bool) {
	recv := f.Signature.Recv()
	if recv == nil || f.Object() == nil || !f.Object().Exported() {
		return "", false
	}
	ptr, ok := recv.Type().(*types.Pointer)
	if !ok {
		return "", false
	}
	named, ok := ptr.Elem().(*types.Named)
	if !ok || named.Obj().Name() != "Client" {
		return "", false
	}
	params := f.Signature.Params()
	if params.Len() != 3 {
		return "", false
	}
	in, ok := params.At(1).Type().(*types.Pointer)
	if !ok {
		return "", false
	}
	inNamed, ok := in.Elem().(*types.Named)
	if !ok || inNamed.Obj().Name() != f.Name()+"Input" {
		return "", false
	}
	return f.Name(), true
}

// sdkService names the AWS service of an SDK service package.
func sdkService(p *ssa.Package) (string, bool) {
	if p == nil {
		return "", false
	}
	rest, ok := strings.CutPrefix(p.Pkg.Path(), sdk)
	if !ok || strings.Contains(rest, "/") {
		return "", false
	}
	return rest, true
}

func inModule(f *ssa.Function) bool {
	return f.Pkg != nil && inModulePkg(f.Pkg.Pkg)
}

func inModulePkg(p *types.Package) bool {
	return p != nil && (p.Path() == module || strings.HasPrefix(p.Path(), module+"/"))
}

// qualifiedName is a package-level function's path.Name, "" for others.
func qualifiedName(f *ssa.Function) string {
	if f.Pkg == nil || f.Signature.Recv() != nil || f.Parent() != nil {
		return ""
	}
	return f.Pkg.Pkg.Path() + "." + f.Name()
}

// inspectInputs records, from the stores into SDK input structs in f, the
// index names of Query inputs and the kinds of TransactWriteItem members.
func (u *analysis) inspectInputs(f *ssa.Function) {
	for _, b := range f.Blocks {
		for _, instr := range b.Instrs {
			switch v := instr.(type) {
			case *ssa.Alloc:
				if isSDKStruct(v.Type(), "dynamodb", "QueryInput") || isSDKStruct(v.Type(), "dynamodb", "ScanInput") {
					u.inputIndex(f, v)
				}
			case *ssa.FieldAddr:
				if st, ok := structOf(v.X.Type(), "dynamodb/types", "TransactWriteItem"); ok {
					u.TransactWrites = append(u.TransactWrites, st.Field(v.Field).Name())
				}
			}
		}
	}
}

// inputIndex records the IndexName stored into a Query or Scan input.
func (u *analysis) inputIndex(f *ssa.Function, input *ssa.Alloc) {
	st, _ := structOf(input.Type(), "dynamodb", "")
	index := ""
	for _, ref := range *input.Referrers() {
		fa, ok := ref.(*ssa.FieldAddr)
		if !ok || st.Field(fa.Field).Name() != "IndexName" {
			continue
		}
		for _, r := range *fa.Referrers() {
			if store, ok := r.(*ssa.Store); ok && store.Addr == fa {
				if p, ok := unwrapString(store.Val).(*ssa.Parameter); ok {
					u.indexParams = append(u.indexParams, p)
					return
				}
				name, ok := constantString(store.Val)
				if !ok {
					u.Problems = append(u.Problems, fmt.Sprintf("%s: the IndexName of a Query is not a constant, so its IAM resource cannot be derived", f))
				}
				index = name
			}
		}
	}
	u.QueryIndexes = append(u.QueryIndexes, index)
}

// resolveIndexParams turns each IndexName passed in as a parameter into
// the constants the reachable callers pass for it, following parameters
// up through callers that pass their own parameter on. A caller passing
// anything else is a problem, as a non-constant IndexName is.
func (a *analysis) resolveIndexParams() {
	seen := map[*ssa.Parameter]bool{}
	work := a.indexParams
	for len(work) > 0 {
		p := work[0]
		work = work[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		fn := p.Parent()
		at := slices.Index(fn.Params, p)
		for caller := range a.reached {
			for _, b := range caller.Blocks {
				for _, instr := range b.Instrs {
					c, ok := instr.(ssa.CallInstruction)
					if !ok || c.Common().StaticCallee() != fn {
						continue
					}
					arg := unwrapString(c.Common().Args[at])
					if up, ok := arg.(*ssa.Parameter); ok {
						work = append(work, up)
						continue
					}
					name, ok := constantString(arg)
					if !ok {
						a.Problems = append(a.Problems, fmt.Sprintf("%s: the IndexName of a Query is not a constant, so its IAM resource cannot be derived", caller))
						continue
					}
					a.QueryIndexes = append(a.QueryIndexes, name)
				}
			}
		}
	}
}

// unwrapString is the argument of aws.String(v), or v.
func unwrapString(v ssa.Value) ssa.Value {
	if call, ok := v.(*ssa.Call); ok {
		if callee := call.Call.StaticCallee(); callee != nil && qualifiedName(callee) == "github.com/aws/aws-sdk-go-v2/aws.String" {
			return call.Call.Args[0]
		}
	}
	return v
}

// constantString resolves v to a constant string: a constant, or
// aws.String of one.
func constantString(v ssa.Value) (string, bool) {
	v = unwrapString(v)
	if c, ok := v.(*ssa.Const); ok && c.Value != nil && c.Value.Kind() == constant.String {
		return constant.StringVal(c.Value), true
	}
	return "", false
}

// isSDKStruct reports whether t is *<sdk><pkg>.<name>.
func isSDKStruct(t types.Type, pkg, name string) bool {
	_, ok := structOf(t, pkg, name)
	return ok
}

// structOf returns the struct under t, a pointer to a named struct type
// of the SDK package pkg (any name if name is "").
func structOf(t types.Type, pkg, name string) (*types.Struct, bool) {
	ptr, ok := t.(*types.Pointer)
	if !ok {
		return nil, false
	}
	named, ok := ptr.Elem().(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != sdk+pkg || (name != "" && named.Obj().Name() != name) {
		return nil, false
	}
	st, ok := named.Underlying().(*types.Struct)
	return st, ok
}

func sortUsage(u *usage) {
	slices.SortFunc(u.Calls, func(a, b call) int { return strings.Compare(a.String(), b.String()) })
	for _, s := range []*[]string{&u.Clients, &u.QueryIndexes, &u.TransactWrites, &u.Problems, &u.SlackMethods, &u.SlackEvents} {
		slices.Sort(*s)
		*s = slices.Compact(*s)
	}
}
