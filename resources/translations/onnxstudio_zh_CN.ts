<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AttrEditors</name>
    <message>
        <source>expected a whole number, got {text}</source>
        <translation>应为整数，得到的是 {text}</translation>
    </message>
    <message>
        <source>expected a number, got {text}</source>
        <translation>应为数字，得到的是 {text}</translation>
    </message>
    <message>
        <source>cannot read {text} as a list</source>
        <translation>无法将 {text} 读取为列表</translation>
    </message>
    <message>
        <source>expected a list, got {text}</source>
        <translation>应为列表，得到的是 {text}</translation>
    </message>
    <message>
        <source>item {i}: {problem}</source>
        <translation>第 {i} 项：{problem}</translation>
    </message>
    <message>
        <source>unknown ({code})</source>
        <translation>未知 ({code})</translation>
    </message>
    <message>
        <source>{type}{dims}, sparse: {stored} of {total} stored</source>
        <translation>{type}{dims}，稀疏：存储了 {total} 个中的 {stored} 个</translation>
    </message>
    <message>
        <source>graph ({n} node)</source>
        <translation>图（{n} 个节点）</translation>
    </message>
    <message>
        <source>graph ({n} nodes)</source>
        <translation>图（{n} 个节点）</translation>
    </message>
    <message>
        <source>{n} graph</source>
        <translation>{n} 个图</translation>
    </message>
    <message>
        <source>{n} graphs</source>
        <translation>{n} 个图</translation>
    </message>
    <message>
        <source>What the operator&apos;s signature says about {name} ({type})</source>
        <translation>算子签名对 {name}（{type}）的说明</translation>
    </message>
    <message>
        <source>required</source>
        <translation>必需</translation>
    </message>
    <message>
        <source>default {value}</source>
        <translation>默认 {value}</translation>
    </message>
</context>
<context>
    <name>Breadcrumbs</name>
    <message>
        <source>Go back to this level (Esc goes up one)</source>
        <translation>返回到这一层（Esc 返回上一层）</translation>
    </message>
</context>
<context>
    <name>ButtonAttrEditor</name>
    <message>
        <source>Edit tensor…</source>
        <translation>编辑张量…</translation>
    </message>
    <message>
        <source>Open body</source>
        <translation>打开子图</translation>
    </message>
</context>
<context>
    <name>Canvas</name>
    <message>
        <source>The calls of this function give it different types: shown is what they all share</source>
        <translation>此函数的各次调用给它的类型不同：这里显示的是所有调用共有的部分</translation>
    </message>
    <message>
        <source>(unnamed)</source>
        <translation>（未命名）</translation>
    </message>
    <message>
        <source>Double-click to expand</source>
        <translation>双击以展开</translation>
    </message>
</context>
<context>
    <name>CanvasEdits</name>
    <message>
        <source>Delete {name}</source>
        <translation>删除 {name}</translation>
    </message>
    <message>
        <source>Delete {n} nodes</source>
        <translation>删除 {n} 个节点</translation>
    </message>
    <message>
        <source>{node} was not deleted: its output &quot;{value}&quot; is read by {readers}.</source>
        <translation>{node} 未删除：其输出“{value}”仍被 {readers} 读取。</translation>
    </message>
    <message>
        <source>Delete and Reconnect (Shift+Del) deletes it and connects its readers to its input; or select the readers too to delete them with it.</source>
        <translation>“删除并重新连接”（Shift+Del）会删除它并将读取者连接到它的输入；或同时选中这些读取者，将它们一并删除。</translation>
    </message>
    <message>
        <source>Select the readers too to delete them with it.</source>
        <translation>请同时选中这些读取者，将它们一并删除。</translation>
    </message>
    <message>
        <source>Select one node to delete and reconnect</source>
        <translation>请选择一个节点以删除并重新连接</translation>
    </message>
    <message>
        <source>Delete and reconnect</source>
        <translation>删除并重新连接</translation>
    </message>
    <message>
        <source>Add a node</source>
        <translation>添加节点</translation>
    </message>
    <message>
        <source>Insert a node after {name}</source>
        <translation>在 {name} 之后插入节点</translation>
    </message>
    <message>
        <source>Insert {op}</source>
        <translation>插入 {op}</translation>
    </message>
    <message>
        <source>Operator Palette (drag onto the canvas)…  Shift+A</source>
        <translation>算子面板（拖到画布上）…  Shift+A</translation>
    </message>
    <message>
        <source>Nothing to connect</source>
        <translation>没有可连接的内容</translation>
    </message>
    <message>
        <source>{node} is not in the graph shown</source>
        <translation>{node} 不在当前显示的图中</translation>
    </message>
    <message>
        <source>{node} cannot read its own output {value}</source>
        <translation>{node} 不能读取自己的输出 {value}</translation>
    </message>
    <message>
        <source>{value} already goes to input {i} of {node}</source>
        <translation>{value} 已连接到 {node} 的输入 {i}</translation>
    </message>
    <message>
        <source>{value} → {node}: a cycle ({producer} already reads what {node} makes)</source>
        <translation>{value} → {node}：会形成环（{producer} 已读取 {node} 的输出）</translation>
    </message>
    <message>
        <source>Connect {value} to {node}</source>
        <translation>将 {value} 连接到 {node}</translation>
    </message>
    <message>
        <source>Release to connect {value} to input {i} of {node}</source>
        <translation>松开以将 {value} 连接到 {node} 的输入 {i}</translation>
    </message>
    <message>
        <source>Release to insert {node} on {value}</source>
        <translation>松开以将 {node} 插入到 {value} 上</translation>
    </message>
    <message>
        <source>Only an edge into a node&apos;s input can be disconnected</source>
        <translation>只能断开连入节点输入的边</translation>
    </message>
    <message>
        <source>{node}: input {i} ({what}) is required; connect another value to it instead</source>
        <translation>{node}：输入 {i}（{what}）是必需的；请改为连接另一个值</translation>
    </message>
    <message>
        <source>Disconnect {value} from {node}</source>
        <translation>断开 {value} 与 {node} 的连接</translation>
    </message>
    <message>
        <source>Insert {op} on {value}</source>
        <translation>在 {value} 上插入 {op}</translation>
    </message>
    <message>
        <source>Copied {n} node</source>
        <translation>已复制 {n} 个节点</translation>
    </message>
    <message>
        <source>Copied {n} nodes</source>
        <translation>已复制 {n} 个节点</translation>
    </message>
    <message>
        <source>Paste {n} node</source>
        <translation>粘贴 {n} 个节点</translation>
    </message>
    <message>
        <source>Paste {n} nodes</source>
        <translation>粘贴 {n} 个节点</translation>
    </message>
    <message>
        <source>Extracted {n} node to {path}</source>
        <translation>已将 {n} 个节点提取到 {path}</translation>
    </message>
    <message>
        <source>Extracted {n} nodes to {path}</source>
        <translation>已将 {n} 个节点提取到 {path}</translation>
    </message>
    <message>
        <source>Select nodes of the main graph to extract</source>
        <translation>请选择主图中要提取的节点</translation>
    </message>
    <message>
        <source>the graph outputs</source>
        <translation>图输出</translation>
    </message>
    <message>
        <source>Extracting the selection</source>
        <translation>提取所选内容</translation>
    </message>
    <message>
        <source>Clean up</source>
        <translation>清理</translation>
    </message>
    <message>
        <source>Extract selection to a new model</source>
        <translation>将所选内容提取为新模型</translation>
    </message>
    <message>
        <source>ONNX model (*.onnx)</source>
        <translation>ONNX 模型 (*.onnx)</translation>
    </message>
</context>
<context>
    <name>CanvasWords</name>
    <message>
        <source>not defined</source>
        <translation>未定义</translation>
    </message>
    <message>
        <source>from enclosing graph</source>
        <translation>来自上层图</translation>
    </message>
    <message>
        <source>constant</source>
        <translation>常量</translation>
    </message>
    <message>
        <source>⟨unused constants⟩</source>
        <translation>⟨未使用的常量⟩</translation>
    </message>
    <message>
        <source>{n} nodes</source>
        <translation>{n} 个节点</translation>
    </message>
    <message>
        <source>{n} node</source>
        <translation>{n} 个节点</translation>
    </message>
</context>
<context>
    <name>CompareAction</name>
    <message>
        <source>Compare With</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>Open a model first: it is A, the model chosen next is B.</source>
        <translation>请先打开一个模型：它是 A，接着选择的模型是 B。</translation>
    </message>
    <message>
        <source>Compare with ONNX model</source>
        <translation>与 ONNX 模型比较</translation>
    </message>
    <message>
        <source>ONNX models (*.onnx);;All files (*)</source>
        <translation>ONNX 模型 (*.onnx);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Matching {name} with the open model…</source>
        <translation>正在将 {name} 与打开的模型配对…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>open model</source>
        <translation>打开的模型</translation>
    </message>
    <message>
        <source>{name} (saved)</source>
        <translation>{name}（已保存）</translation>
    </message>
    <message>
        <source>{name} (edited)</source>
        <translation>{name}（已编辑）</translation>
    </message>
    <message>
        <source>The models are the same.</source>
        <translation>两个模型相同。</translation>
    </message>
    <message>
        <source>No difference found in what could be compared; the values of {n} weight(s) could not be read, so they were not compared.</source>
        <translation>在可比较的部分中未发现差异；有 {n} 个权重的值无法读取，因此未作比较。</translation>
    </message>
    <message>
        <source>Show Changes Since Save</source>
        <translation>显示自保存以来的更改</translation>
    </message>
    <message>
        <source>There are no unsaved changes: the model is as saved.</source>
        <translation>没有未保存的更改：模型与保存时相同。</translation>
    </message>
    <message>
        <source>The model has no saved file to compare with: save it first.</source>
        <translation>模型没有可比较的已保存文件：请先保存。</translation>
    </message>
</context>
<context>
    <name>CompareActions</name>
    <message>
        <source>Extract Failing Subgraph from Selected Node…</source>
        <translation>从所选节点提取出错子图…</translation>
    </message>
    <message>
        <source>Extract failing subgraph from {node}… (Ctrl+Shift+X)</source>
        <translation>从 {node} 提取出错子图…（Ctrl+Shift+X）</translation>
    </message>
    <message>
        <source>Select one node compared with onnxruntime to extract the failing subgraph from it</source>
        <translation>请选择一个已与 onnxruntime 比较过的节点，以从它提取出错子图</translation>
    </message>
    <message>
        <source>Extract failing subgraph</source>
        <translation>提取出错的子图</translation>
    </message>
    <message>
        <source>ONNX models (*.onnx)</source>
        <translation>ONNX 模型 (*.onnx)</translation>
    </message>
    <message>
        <source>Compare with onnxruntime first</source>
        <translation>请先与 onnxruntime 比较</translation>
    </message>
    <message>
        <source>Extracting the failing subgraph…</source>
        <translation>正在提取出错的子图…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Extracting the failing subgraph… trying {n} node(s)</source>
        <translation>正在提取出错的子图…正在尝试 {n} 个节点</translation>
    </message>
    <message>
        <source>Extract failing subgraph: {error}</source>
        <translation>提取出错的子图：{error}</translation>
    </message>
    <message>
        <source>Extracting cancelled: nothing written</source>
        <translation>已取消提取：未写入任何文件</translation>
    </message>
    <message>
        <source>The model was edited since the comparison: compare with onnxruntime again, then extract</source>
        <translation>比较之后模型已被编辑：请先再次与 onnxruntime 比较，然后再提取</translation>
    </message>
    <message>
        <source>Wrote the failing subgraph ({n} node(s) from {node}): {files}</source>
        <translation>已写出出错的子图（从 {node} 起共 {n} 个节点）：{files}</translation>
    </message>
</context>
<context>
    <name>CompareOptions</name>
    <message>
        <source>Comparison options</source>
        <translation>比较选项</translation>
    </message>
    <message>
        <source>relative tolerance: an element agrees when |ours − theirs| ≤ atol × max(1, the value&apos;s largest |value|) + rtol × |theirs|</source>
        <translation>相对容差：当 |我们的 − 对方的| ≤ atol × max(1, 该值的最大 |值|) + rtol × |对方的| 时，元素视为一致</translation>
    </message>
    <message>
        <source>name=rtol,atol; … (e.g. logits=1e-2,1e-3)</source>
        <translation>名称=rtol,atol; …（例如 logits=1e-2,1e-3）</translation>
    </message>
    <message>
        <source>tolerances of single values (outputs or intermediates), separated by &apos;;&apos;</source>
        <translation>单个值（输出或中间值）的容差，用 &apos;;&apos; 分隔</translation>
    </message>
    <message>
        <source>onnxruntime&apos;s graph optimisations; with any but &apos;disable&apos; some intermediates are fused away and cannot be compared</source>
        <translation>onnxruntime 的图优化；除 &apos;disable&apos; 外，部分中间值会被融合掉，无法比较</translation>
    </message>
    <message>
        <source>tolerances</source>
        <translation>容差</translation>
    </message>
    <message>
        <source>per value</source>
        <translation>按值</translation>
    </message>
    <message>
        <source>execution provider</source>
        <translation>执行提供程序</translation>
    </message>
    <message>
        <source>optimisation level</source>
        <translation>优化级别</translation>
    </message>
    <message>
        <source>per value: {item} is not name=rtol,atol</source>
        <translation>按值：{item} 不是 名称=rtol,atol 的形式</translation>
    </message>
    <message>
        <source>{what}: {text} is not a tolerance (a number, 0 or more, such as 1e-3)</source>
        <translation>{what}：{text} 不是容差（应为 0 或更大的数，例如 1e-3）</translation>
    </message>
</context>
<context>
    <name>CompareView</name>
    <message>
        <source>Compare with onnxruntime</source>
        <translation>与 onnxruntime 对比</translation>
    </message>
    <message>
        <source>Keep run as reference</source>
        <translation>保留本次运行作为参考</translation>
    </message>
    <message>
        <source>Compare with reference</source>
        <translation>与参考运行对比</translation>
    </message>
    <message>
        <source>Go to first divergence</source>
        <translation>转到第一个分歧处</translation>
    </message>
    <message>
        <source>Extract failing subgraph…</source>
        <translation>提取出错的子图…</translation>
    </message>
    <message>
        <source>Write the smallest part of the model that still disagrees with onnxruntime, from the node with the largest own error, with its inputs as .npz beside it (for a bug report)</source>
        <translation>从自身误差最大的节点出发，写出仍与 onnxruntime 不一致的最小模型部分，并在旁边以 .npz 保存其输入（用于提交错误报告）</translation>
    </message>
    <message>
        <source>Colour by total error</source>
        <translation>按总误差着色</translation>
    </message>
    <message>
        <source>Colour by own error</source>
        <translation>按自身误差着色</translation>
    </message>
    <message>
        <source>Total: each node&apos;s outputs against the reference, so every node after a broken one is coloured. Own: each node run alone on the reference&apos;s values of its inputs, so only the node that makes the error is</source>
        <translation>总误差：每个节点的输出与参考相比，因此出错节点之后的所有节点都会着色。自身误差：每个节点单独以参考的输入值运行，因此只有产生误差的节点会着色</translation>
    </message>
    <message>
        <source>Options</source>
        <translation>选项</translation>
    </message>
    <message>
        <source>No comparison yet</source>
        <translation>尚无对比</translation>
    </message>
    <message>
        <source>The canvas shows the profile&apos;s heat: these colours are hidden there.</source>
        <translation>画布正显示性能分析的热度：这些颜色在画布上已隐藏。</translation>
    </message>
    <message>
        <source>Show on the canvas</source>
        <translation>在画布上显示</translation>
    </message>
    <message>
        <source>Colour the boxes by this comparison again, in place of the heat</source>
        <translation>改回按此对比为方框着色，取代热度</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Op</source>
        <translation>算子</translation>
    </message>
    <message>
        <source>Max abs</source>
        <translation>最大绝对误差</translation>
    </message>
    <message>
        <source>Rel</source>
        <translation>相对误差</translation>
    </message>
    <message>
        <source>Own abs</source>
        <translation>自身绝对误差</translation>
    </message>
    <message>
        <source>Own rel</source>
        <translation>自身相对误差</translation>
    </message>
    <message>
        <source>the node run alone on the reference&apos;s values of its inputs, against the reference&apos;s outputs</source>
        <translation>该节点单独以参考的输入值运行，与参考的输出相比</translation>
    </message>
    <message>
        <source>the reference run</source>
        <translation>参考运行</translation>
    </message>
    <message>
        <source>Against &lt;b&gt;{who}&lt;/b&gt;: {ok} of {n} node agrees.</source>
        <translation>与 &lt;b&gt;{who}&lt;/b&gt; 对比：{n} 个节点中有 {ok} 个一致。</translation>
    </message>
    <message>
        <source>Against &lt;b&gt;{who}&lt;/b&gt;: {ok} of {n} nodes agree.</source>
        <translation>与 &lt;b&gt;{who}&lt;/b&gt; 对比：{n} 个节点中有 {ok} 个一致。</translation>
    </message>
    <message>
        <source>First divergence: &lt;b&gt;{node}&lt;/b&gt; ({note}).</source>
        <translation>第一个分歧：&lt;b&gt;{node}&lt;/b&gt;（{note}）。</translation>
    </message>
    <message>
        <source>First divergence: &lt;b&gt;{node}&lt;/b&gt; (rel. error {rel}).</source>
        <translation>第一个分歧：&lt;b&gt;{node}&lt;/b&gt;（相对误差 {rel}）。</translation>
    </message>
    <message>
        <source>Its own error is within the tolerance: a difference of its inputs, within the tolerance, crossed a step of its output (a rounding, a comparison, an argmax).</source>
        <translation>它自身的误差在容差之内：其输入在容差之内的差异跨过了其输出的一个台阶（舍入、比较或 argmax）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;1 node differs without being wrong&lt;/b&gt;:</source>
        <translation>&lt;b&gt;1 个节点不同但并没有错&lt;/b&gt;：</translation>
    </message>
    <message>
        <source>&lt;b&gt;{n} nodes differ without being wrong&lt;/b&gt;:</source>
        <translation>&lt;b&gt;{n} 个节点不同但并没有错&lt;/b&gt;：</translation>
    </message>
    <message>
        <source>onnxruntime computes them otherwise than the operator&apos;s definition (its uint8 × int8 sums saturate on CPUs without VNNI, ...), shown exactly by recomputing its way; ours follow the definition (each row&apos;s tooltip says how).</source>
        <translation>onnxruntime 的算法与该算子的定义不同（例如在没有 VNNI 的 CPU 上其 uint8 × int8 的和会饱和），按它的方式重新计算即可完全复现；我们的结果遵循定义（每行的提示说明原因）。</translation>
    </message>
    <message>
        <source>Inputs or initializers that differ: {names}</source>
        <translation>不同的输入或初始化器：{names}</translation>
    </message>
    <message>
        <source>{n} value could not be compared.</source>
        <translation>{n} 个值无法对比。</translation>
    </message>
    <message>
        <source>{n} values could not be compared.</source>
        <translation>{n} 个值无法对比。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Own errors incomplete&lt;/b&gt;: the pass was cancelled after {i} of {n} nodes; the others show –.</source>
        <translation>&lt;b&gt;自身误差不完整&lt;/b&gt;：计算在 {n} 个节点中的 {i} 个之后被取消；其余显示为 –。</translation>
    </message>
    <message>
        <source>Largest own error so far: &lt;b&gt;{node}&lt;/b&gt; (own rel. error {rel}; the node run alone on the reference&apos;s values of its inputs).</source>
        <translation>目前最大的自身误差：&lt;b&gt;{node}&lt;/b&gt;（自身相对误差 {rel}；该节点在参考方的输入值上单独运行）。</translation>
    </message>
    <message>
        <source>Largest own error: &lt;b&gt;{node}&lt;/b&gt; (own rel. error {rel}; the node run alone on the reference&apos;s values of its inputs).</source>
        <translation>自身误差最大：&lt;b&gt;{node}&lt;/b&gt;（自身相对误差 {rel}；该节点单独以参考的输入值运行）。</translation>
    </message>
    <message>
        <source>Made before your last edit: compare again to see its effect.</source>
        <translation>此比较早于你最近一次编辑：请再次比较以查看其影响。</translation>
    </message>
    <message>
        <source>Made with the inputs before your last change: run and compare again to see theirs.</source>
        <translation>此比较使用的是你最近一次更改之前的输入：请重新运行并比较以查看新输入的结果。</translation>
    </message>
    <message>
        <source>Its colours are off the canvas until then.</source>
        <translation>在此之前，画布上不显示它的颜色。</translation>
    </message>
    <message>
        <source>onnxruntime&apos;s</source>
        <translation>onnxruntime 所致</translation>
    </message>
    <message>
        <source>first</source>
        <translation>第一个</translation>
    </message>
    <message>
        <source>differs</source>
        <translation>不一致</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>一致</translation>
    </message>
    <message>
        <source>Own errors: {n} node that computes ({k} constants and shape-only nodes skipped).</source>
        <translation>自身误差：{n} 个参与计算的节点（跳过 {k} 个常量和仅形状节点）。</translation>
    </message>
    <message>
        <source>Own errors: {n} nodes that compute ({k} constants and shape-only nodes skipped).</source>
        <translation>自身误差：{n} 个参与计算的节点（跳过 {k} 个常量和仅形状节点）。</translation>
    </message>
    <message>
        <source>Inside bodies (each run alone by onnxruntime on our inputs): {ok} of {n} values agree.</source>
        <translation>子图内（每个子图由 onnxruntime 用我们的输入单独运行）：{n} 个值中 {ok} 个一致。</translation>
    </message>
    <message>
        <source>{n} not compared (this line&apos;s tooltip says which, and why).</source>
        <translation>{n} 个未比较（此行的提示列出是哪些以及原因）。</translation>
    </message>
    <message>
        <source>{n} bodies did not run: nothing there to compare</source>
        <translation>{n} 个子图未运行：其中没有可比较的值</translation>
    </message>
</context>
<context>
    <name>CompareWindow</name>
    <message>
        <source>Compare {a} with {b}</source>
        <translation>比较 {a} 与 {b}</translation>
    </message>
    <message>
        <source>A: {name}</source>
        <translation>A：{name}</translation>
    </message>
    <message>
        <source>B: {name}</source>
        <translation>B：{name}</translation>
    </message>
    <message>
        <source>Save as Edit Script…</source>
        <translation>另存为编辑脚本…</translation>
    </message>
    <message>
        <source>Write the edits that turn A into B as an edit script, to replay with onnxstudio edit</source>
        <translation>将把 A 变为 B 的编辑写成编辑脚本，可用 onnxstudio edit 重放</translation>
    </message>
    <message>
        <source>These models share {shared} of A&apos;s {a} and B&apos;s {b} computing nodes: they may not be versions of one model.</source>
        <translation>这两个模型在 A 的 {a} 个和 B 的 {b} 个计算节点中只共有 {shared} 个：它们可能不是同一模型的不同版本。</translation>
    </message>
    <message>
        <source>Differences</source>
        <translation>差异</translation>
    </message>
    <message>
        <source>A and B</source>
        <translation>A 与 B</translation>
    </message>
    <message>
        <source>Scroll Together</source>
        <translation>同步滚动</translation>
    </message>
    <message>
        <source>Pan and zoom both canvases together, the partner of what is in the middle of one at the same place in the other (Ctrl+L)</source>
        <translation>两侧画布一起平移和缩放：一侧中间所示内容的对应项显示在另一侧的同一位置 (Ctrl+L)</translation>
    </message>
    <message>
        <source>Save as Edit Script</source>
        <translation>另存为编辑脚本</translation>
    </message>
    <message>
        <source>Edit scripts (*.json);;All files (*)</source>
        <translation>编辑脚本 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Deriving the edit script…</source>
        <translation>正在生成编辑脚本…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>{count} edit(s) written to {path}.</source>
        <translation>已将 {count} 个编辑写入 {path}。</translation>
    </message>
    <message>
        <source>Not expressed as edits ({count}):</source>
        <translation>无法用编辑表达的差异（{count}）：</translation>
    </message>
    <message>
        <source>… and {count} more</source>
        <translation>… 以及另外 {count} 项</translation>
    </message>
</context>
<context>
    <name>CompareWork</name>
    <message>
        <source>comparing with onnxruntime&apos;s values: {i}/{n} values</source>
        <translation>正在与 onnxruntime 的值比较：{i}/{n} 个值</translation>
    </message>
    <message>
        <source>onnxruntime: running the model with every intermediate exposed…</source>
        <translation>onnxruntime：正在运行模型，暴露所有中间值…</translation>
    </message>
    <message>
        <source>own error: {i}/{n} nodes that compute (constants and shape-only nodes skipped)</source>
        <translation>自身误差：{i}/{n} 个参与计算的节点（跳过常量和仅形状节点）</translation>
    </message>
</context>
<context>
    <name>DiffStatus</name>
    <message>
        <source>same</source>
        <translation>相同</translation>
    </message>
    <message>
        <source>added in B</source>
        <translation>B 中新增</translation>
    </message>
    <message>
        <source>removed from A</source>
        <translation>从 A 中删除</translation>
    </message>
    <message>
        <source>changed</source>
        <translation>已更改</translation>
    </message>
    <message>
        <source>rewritten (fused, folded, …)</source>
        <translation>已改写（融合、折叠等）</translation>
    </message>
    <message>
        <source>changed inside</source>
        <translation>内部有更改</translation>
    </message>
    <message>
        <source>reads values not compared</source>
        <translation>读取了未比较的值</translation>
    </message>
</context>
<context>
    <name>DifferenceList</name>
    <message>
        <source>Show More</source>
        <translation>显示更多</translation>
    </message>
    <message>
        <source>{n} Constant nodes added in B</source>
        <translation>B 中新增了 {n} 个 Constant 节点</translation>
    </message>
    <message>
        <source>{n} Constant nodes removed from A</source>
        <translation>A 中删除了 {n} 个 Constant 节点</translation>
    </message>
    <message>
        <source>{what}: {a} → {b}</source>
        <translation>{what}：{a} → {b}</translation>
    </message>
    <message>
        <source>initializer {name}</source>
        <translation>初始化器 {name}</translation>
    </message>
    <message>
        <source>op {a} → {b}</source>
        <translation>算子 {a} → {b}</translation>
    </message>
    <message>
        <source>attributes {names}</source>
        <translation>属性 {names}</translation>
    </message>
    <message>
        <source>inputs rewired</source>
        <translation>输入连线已更改</translation>
    </message>
    <message>
        <source>domain</source>
        <translation>域</translation>
    </message>
    <message>
        <source>dtype {a} → {b}</source>
        <translation>数据类型 {a} → {b}</translation>
    </message>
    <message>
        <source>shape {a} → {b}</source>
        <translation>形状 {a} → {b}</translation>
    </message>
    <message>
        <source>values not compared: {reason}</source>
        <translation>数值未比较：{reason}</translation>
    </message>
    <message>
        <source>values differ</source>
        <translation>值不同</translation>
    </message>
    <message>
        <source>weight {name}: values not compared: {reason}</source>
        <translation>权重 {name}：数值未比较：{reason}</translation>
    </message>
    <message>
        <source>{node}: attribute {name}: values not compared: {reason}</source>
        <translation>{node}：属性 {name}：数值未比较：{reason}</translation>
    </message>
    <message>
        <source>graph input/output declared again in B only: {name} (position {i})</source>
        <translation>仅 B 重复声明的图输入/输出：{name}（位置 {i}）</translation>
    </message>
    <message>
        <source>graph input/output declared again in A only: {name} (position {i})</source>
        <translation>仅 A 重复声明的图输入/输出：{name}（位置 {i}）</translation>
    </message>
    <message>
        <source>renamed: {a} → {b} ({op})</source>
        <translation>已重命名：{a} → {b}（{op}）</translation>
    </message>
    <message>
        <source>value renamed: {a} → {b}</source>
        <translation>值已重命名：{a} → {b}</translation>
    </message>
    <message>
        <source>opset import {domain}: {a} → {b}</source>
        <translation>算子集导入 {domain}：{a} → {b}</translation>
    </message>
    <message>
        <source>IR version: {a} → {b}</source>
        <translation>IR 版本：{a} → {b}</translation>
    </message>
    <message>
        <source>Constant nodes only one side has, in one row: click (or Enter) to list them or hide them again</source>
        <translation>仅一侧具有的 Constant 节点，合并为一行：点击（或按 Enter）列出或再次收起</translation>
    </message>
    <message>
        <source>… {n} more: click to list them</source>
        <translation>… 还有 {n} 个：点击列出</translation>
    </message>
    <message numerus="yes">
        <source>{shown} of %n differences</source>
        <translation>
            <numerusform>%n 处差异中的 {shown} 处</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n difference</source>
        <translation>
            <numerusform>%n 处差异</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n differences</source>
        <translation>
            <numerusform>%n 处差异</numerusform>
        </translation>
    </message>
    <message>
        <source>added: {name} ({op})</source>
        <translation>新增：{name}（{op}）</translation>
    </message>
    <message>
        <source>removed: {name} ({op})</source>
        <translation>删除：{name}（{op}）</translation>
    </message>
    <message>
        <source>max abs {x:.4g}</source>
        <translation>最大绝对差 {x:.4g}</translation>
    </message>
    <message>
        <source>weight {name}: {detail}</source>
        <translation>权重 {name}：{detail}</translation>
    </message>
    <message>
        <source>weight added: {name}</source>
        <translation>新增权重：{name}</translation>
    </message>
    <message>
        <source>weight removed: {name}</source>
        <translation>删除权重：{name}</translation>
    </message>
    <message>
        <source>graph input/output added: {name}</source>
        <translation>新增图输入/输出：{name}</translation>
    </message>
    <message>
        <source>graph input/output removed: {name}</source>
        <translation>删除图输入/输出：{name}</translation>
    </message>
    <message>
        <source>graph input/output {a}: {ta} → {b}: {tb}</source>
        <translation>图输入/输出 {a}：{ta} → {b}：{tb}</translation>
    </message>
</context>
<context>
    <name>DimNames</name>
    <message>
        <source>{name}: a size nothing names; inference calls it {name} (the same name on two values means the same size)</source>
        <translation>{name}：一个没有名字的尺寸；推断称其为 {name}（两个值上的同名即同一尺寸）</translation>
    </message>
</context>
<context>
    <name>Docks</name>
    <message>
        <source>Properties</source>
        <translation>属性</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <source>Undo History</source>
        <translation>撤销历史</translation>
    </message>
    <message>
        <source>Problems</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Tensor Inspector</source>
        <translation>张量查看器</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>性能分析</translation>
    </message>
</context>
<context>
    <name>EditActions</name>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Add Node…</source>
        <translation>添加节点(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Delete</source>
        <translation>删除(&amp;D)</translation>
    </message>
    <message>
        <source>Delete and &amp;Reconnect</source>
        <translation>删除并重新连接(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Copy Nodes</source>
        <translation>复制节点(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Paste Nodes</source>
        <translation>粘贴节点(&amp;P)</translation>
    </message>
    <message>
        <source>E&amp;xtract Selection to New Model…</source>
        <translation>将所选内容提取为新模型(&amp;X)…</translation>
    </message>
    <message>
        <source>C&amp;lean Up (remove unused)</source>
        <translation>清理（删除未使用的内容）(&amp;L)</translation>
    </message>
    <message>
        <source>Set D&amp;ims of All Inputs…</source>
        <translation>设置所有输入的维度(&amp;I)…</translation>
    </message>
    <message>
        <source>Save Edits as &amp;Script…</source>
        <translation>将编辑保存为脚本(&amp;S)…</translation>
    </message>
    <message>
        <source>Appl&amp;y Edit Script…</source>
        <translation>应用编辑脚本(&amp;Y)…</translation>
    </message>
    <message>
        <source>&amp;Undo {name}</source>
        <translation>撤销 {name}(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo {name}</source>
        <translation>重做 {name}(&amp;R)</translation>
    </message>
    <message>
        <source>Insert Node on {name}…</source>
        <translation>在 {name} 上插入节点…</translation>
    </message>
    <message>
        <source>Disconnect {name}</source>
        <translation>断开 {name}</translation>
    </message>
</context>
<context>
    <name>ErrorLegend</name>
    <message>
        <source>agrees</source>
        <translation>一致</translation>
    </message>
    <message>
        <source>≥1  rel. error</source>
        <translation>≥1  相对误差</translation>
    </message>
</context>
<context>
    <name>Export</name>
    <message>
        <source>{path}: choose a .svg or .png file name</source>
        <translation>{path}：请选择 .svg 或 .png 文件名</translation>
    </message>
    <message>
        <source>{path}: could not be written</source>
        <translation>{path}：无法写入</translation>
    </message>
</context>
<context>
    <name>FileActions</name>
    <message>
        <source>ONNX model (*.onnx);;All files (*)</source>
        <translation>ONNX 模型 (*.onnx);;所有文件 (*)</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <source>Save &amp;As…</source>
        <translation>另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>the model</source>
        <translation>该模型</translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <source>{name} has unsaved changes. Save them?</source>
        <translation>{name} 有未保存的更改。要保存吗？</translation>
    </message>
    <message>
        <source>Nothing to save: {name} has no changes since it was opened or saved (Save As writes a copy)</source>
        <translation>无需保存：{name} 自打开或上次保存以来没有更改（“另存为”会写出副本）</translation>
    </message>
    <message>
        <source>Save a model with errors?</source>
        <translation>保存有错误的模型？</translation>
    </message>
    <message>
        <source>The checker reports {n} error: {first}. Other tools may refuse this file. Save anyway?</source>
        <translation>检查器报告了 {n} 个错误：{first}。其他工具可能会拒绝此文件。仍要保存吗？</translation>
    </message>
    <message>
        <source>The checker reports {n} errors, the first: {first}. Other tools may refuse this file. Save anyway?</source>
        <translation>检查器报告了 {n} 个错误，第一个是：{first}。其他工具可能会拒绝此文件。仍要保存吗？</translation>
    </message>
    <message>
        <source>File changed on disk</source>
        <translation>磁盘上的文件已更改</translation>
    </message>
    <message>
        <source>{path} was changed by another program since it was opened. Overwrite it?</source>
        <translation>{path} 在打开后已被其他程序修改。要覆盖它吗？</translation>
    </message>
    <message>
        <source>Save failed</source>
        <translation>保存失败</translation>
    </message>
    <message>
        <source>{path}: {error}. The file on disk was not changed.</source>
        <translation>{path}：{error}。磁盘上的文件未被更改。</translation>
    </message>
    <message>
        <source>Save failed: {error}</source>
        <translation>保存失败：{error}</translation>
    </message>
    <message>
        <source>Saving {path}</source>
        <translation>保存 {path}</translation>
    </message>
    <message>
        <source>Saved {path}</source>
        <translation>已保存 {path}</translation>
    </message>
    <message>
        <source>appended {files} (the data files only grow: Save As writes compact ones)</source>
        <translation>已追加 {files}（数据文件只会变大：“另存为”写出紧凑的数据文件）</translation>
    </message>
    <message>
        <source>{size} to {file}</source>
        <translation>{size} 到 {file}</translation>
    </message>
    <message>
        <source>Save edits as script</source>
        <translation>将编辑保存为脚本</translation>
    </message>
    <message>
        <source>Edit script (*.json)</source>
        <translation>编辑脚本 (*.json)</translation>
    </message>
    <message>
        <source>Wrote {path}</source>
        <translation>已写入 {path}</translation>
    </message>
    <message>
        <source>Save model as</source>
        <translation>模型另存为</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Where should the weights (tensors ≥ 1 KB) go?</source>
        <translation>权重（≥ 1 KB 的张量）应保存在哪里？</translation>
    </message>
</context>
<context>
    <name>GraphPanel</name>
    <message>
        <source>Skipped {title}: an edit has removed it since you were there.</source>
        <translation>已跳过 {title}：您离开后，一次编辑已将它删除。</translation>
    </message>
    <message>
        <source>Laying out {title} ({n} node)…</source>
        <translation>正在布局 {title}（{n} 个节点）…</translation>
    </message>
    <message>
        <source>Laying out {title} ({n} nodes)…</source>
        <translation>正在布局 {title}（{n} 个节点）…</translation>
    </message>
    <message>
        <source>Collapse {name}</source>
        <translation>折叠 {name}</translation>
    </message>
    <message>
        <source>Expand {name}</source>
        <translation>展开 {name}</translation>
    </message>
    <message>
        <source>Open {name}</source>
        <translation>打开 {name}</translation>
    </message>
    <message>
        <source>Fit graph (F)</source>
        <translation>适应窗口 (F)</translation>
    </message>
    <message>
        <source>Expand all groups</source>
        <translation>展开所有分组</translation>
    </message>
    <message>
        <source>Collapse all groups</source>
        <translation>折叠所有分组</translation>
    </message>
    <message>
        <source>Back to enclosing graph (Esc)</source>
        <translation>返回上层图 (Esc)</translation>
    </message>
    <message>
        <source>function {name}</source>
        <translation>函数 {name}</translation>
    </message>
</context>
<context>
    <name>GraphScene</name>
    <message>
        <source>  ({n} node)</source>
        <translation>  （{n} 个节点）</translation>
    </message>
    <message>
        <source>  ({n} nodes)</source>
        <translation>  （{n} 个节点）</translation>
    </message>
    <message>
        <source>Double-click the title to collapse</source>
        <translation>双击标题以折叠</translation>
    </message>
</context>
<context>
    <name>Heat</name>
    <message>
        <source>built-in</source>
        <translation>内置执行器</translation>
    </message>
    <message>
        <source>time per box, {who} ({ms} a run)</source>
        <translation>每个框的耗时，{who}（每次运行 {ms}）</translation>
    </message>
    <message>
        <source>time per box inside {node}, all its runs in a run</source>
        <translation>{node} 内部每个框的耗时，一次运行中其所有执行之和</translation>
    </message>
    <message>
        <source>before your last edit: {title}</source>
        <translation>最近一次编辑之前：{title}</translation>
    </message>
    <message>
        <source>no times inside a function: its call&apos;s node has them</source>
        <translation>函数内部没有耗时：耗时计在调用它的节点上</translation>
    </message>
    <message>
        <source>times inside bodies are not measured by this profile (onnxruntime&apos;s): {node} has its body&apos;s time</source>
        <translation>此性能剖析（onnxruntime 的）不测量子图内部的耗时：子图的耗时计在 {node} 上</translation>
    </message>
    <message>
        <source>no times: this body did not run in the profiled runs</source>
        <translation>没有耗时：剖析的运行中此子图未执行</translation>
    </message>
    <message>
        <source>group {name}: {time} a run in its nodes ({share})</source>
        <translation>分组 {name}：其节点每次运行耗时 {time}（{share}）</translation>
    </message>
    <message>
        <source>{node}: {time} a run ({share})</source>
        <translation>{node}：每次运行 {time}（{share}）</translation>
    </message>
    <message>
        <source>measured together with {nodes}</source>
        <translation>与 {nodes} 一起计时</translation>
    </message>
</context>
<context>
    <name>HistogramWidget</name>
    <message>
        <source>no finite values to count</source>
        <translation>没有可统计的有限值</translation>
    </message>
    <message>
        <source>peak {n} (log)</source>
        <translation>峰值 {n}（对数）</translation>
    </message>
    <message>
        <source>peak {n}</source>
        <translation>峰值 {n}</translation>
    </message>
</context>
<context>
    <name>HistoryPanel</name>
    <message>
        <source>Click a step to go back to it.</source>
        <translation>单击某一步以回到该步。</translation>
    </message>
    <message>
        <source>Opened {name}</source>
        <translation>已打开 {name}</translation>
    </message>
    <message>
        <source>model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source> (saved)</source>
        <translation>（已保存）</translation>
    </message>
</context>
<context>
    <name>ImageView</name>
    <message>
        <source>batch </source>
        <translation>批次 </translation>
    </message>
    <message>
        <source>layout</source>
        <translation>布局</translation>
    </message>
    <message>
        <source>not image-shaped</source>
        <translation>不是图像形状</translation>
    </message>
    <message>
        <source>{layout} needs {n} axes</source>
        <translation>{layout} 需要 {n} 个轴</translation>
    </message>
    <message>
        <source>channel {c} (grey)</source>
        <translation>通道 {c}（灰度）</translation>
    </message>
    <message>
        <source>{w}×{h}, stretched min..max</source>
        <translation>{w}×{h}，按最小值..最大值拉伸</translation>
    </message>
</context>
<context>
    <name>InitializerValues</name>
    <message>
        <source>Show values</source>
        <translation>显示数值</translation>
    </message>
    <message>
        <source>Export .npy…</source>
        <translation>导出 .npy…</translation>
    </message>
    <message>
        <source>Values of {name}</source>
        <translation>{name} 的数值</translation>
    </message>
    <message>
        <source>Cannot read tensor</source>
        <translation>无法读取张量</translation>
    </message>
    <message>
        <source>Export tensor</source>
        <translation>导出张量</translation>
    </message>
    <message>
        <source>NumPy array (*.npy)</source>
        <translation>NumPy 数组 (*.npy)</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>Could not write {path}: {error}</source>
        <translation>无法写入 {path}：{error}</translation>
    </message>
</context>
<context>
    <name>InputDims</name>
    <message>
        <source>Set dims of all inputs</source>
        <translation>设置所有输入的维度</translation>
    </message>
    <message>
        <source>Dims not changed</source>
        <translation>维度未更改</translation>
    </message>
    <message>
        <source>{problem}. Nothing was changed.</source>
        <translation>{problem}。没有做任何更改。</translation>
    </message>
</context>
<context>
    <name>InputDimsDialog</name>
    <message>
        <source>Set Dims of All Inputs</source>
        <translation>设置所有输入的维度</translation>
    </message>
    <message>
        <source>first dim (batch) of every input</source>
        <translation>每个输入的第一个维度(批大小)</translation>
    </message>
    <message>
        <source>every dim named {name}</source>
        <translation>每个名为 {name} 的维度</translation>
    </message>
    <message>
        <source>set</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>a size, a name or ?</source>
        <translation>大小、名称或 ?</translation>
    </message>
    <message>
        <source>to</source>
        <translation>为</translation>
    </message>
    <message>
        <source>Inputs changed: {names}</source>
        <translation>将更改的输入:{names}</translation>
    </message>
    <message>
        <source>The inputs do not agree on this dim now ({dims}); all of them will get the value above.</source>
        <translation>各输入目前在此维度上不一致({dims});它们都将取上面的值。</translation>
    </message>
    <message>
        <source>give one dim: a size, a name or ?</source>
        <translation>请给出一个维度:大小、名称或 ?</translation>
    </message>
</context>
<context>
    <name>InputsPanel</name>
    <message>
        <source>Input sets (*.json);;All files (*)</source>
        <translation>输入集 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Arrays (*.npy *.npz *.pb);;All files (*)</source>
        <translation>数组 (*.npy *.npz *.pb);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Images (*.png *.jpg *.jpeg *.bmp *.ppm *.pgm *.pnm *.tif *.tiff *.webp *.gif);;All files (*)</source>
        <translation>图像 (*.png *.jpg *.jpeg *.bmp *.ppm *.pgm *.pnm *.tif *.tiff *.webp *.gif);;所有文件 (*)</translation>
    </message>
    <message>
        <source>random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>zeros</source>
        <translation>全零</translation>
    </message>
    <message>
        <source>ones</source>
        <translation>全一</translation>
    </message>
    <message>
        <source>constant</source>
        <translation>常量</translation>
    </message>
    <message>
        <source>file</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>image</source>
        <translation>图像</translation>
    </message>
    <message>
        <source>{what}: {text} is not a list of numbers (e.g. 0.485, 0.456, 0.406)</source>
        <translation>{what}：{text} 不是数字列表（例如 0.485, 0.456, 0.406）</translation>
    </message>
    <message>
        <source>seed </source>
        <translation>种子 </translation>
    </message>
    <message>
        <source>Save set…</source>
        <translation>保存输入集…</translation>
    </message>
    <message>
        <source>Load set…</source>
        <translation>加载输入集…</translation>
    </message>
    <message>
        <source>Sizes of symbolic dimensions</source>
        <translation>符号维度的大小</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>integers {low}..{high}</source>
        <translation>整数 {low}..{high}</translation>
    </message>
    <message>
        <source>true/false at random</source>
        <translation>随机真/假</translation>
    </message>
    <message>
        <source>uniform {low}..{high}</source>
        <translation>均匀分布 {low}..{high}</translation>
    </message>
    <message>
        <source>normal mean {mean} std {std}</source>
        <translation>正态分布 均值 {mean} 标准差 {std}</translation>
    </message>
    <message>
        <source>all {value}</source>
        <translation>全部为 {value}</translation>
    </message>
    <message>
        <source>(choose a file)</source>
        <translation>（选择文件）</translation>
    </message>
    <message>
        <source>Save input set</source>
        <translation>保存输入集</translation>
    </message>
    <message>
        <source>{path}: cannot write ({error})</source>
        <translation>{path}：无法写入（{error}）</translation>
    </message>
    <message>
        <source>Saved the input set to {path}</source>
        <translation>已将输入集保存到 {path}</translation>
    </message>
    <message>
        <source>Load input set</source>
        <translation>加载输入集</translation>
    </message>
    <message>
        <source>{path}: no such file</source>
        <translation>{path}：文件不存在</translation>
    </message>
    <message>
        <source>{path}: not an input set ({error})</source>
        <translation>{path}：不是输入集（{error}）</translation>
    </message>
    <message>
        <source>Loaded {path}; the model has no input {names} (ignored)</source>
        <translation>已加载 {path}；模型没有输入 {names}（已忽略）</translation>
    </message>
    <message>
        <source>Loaded the input set {path}</source>
        <translation>已加载输入集 {path}</translation>
    </message>
    <message>
        <source>Arrays by input name (*.npz);;All files (*)</source>
        <translation>按输入名称命名的数组 (*.npz);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Load all inputs…</source>
        <translation>加载全部输入…</translation>
    </message>
    <message>
        <source>Every input from one .npz file whose arrays are named like the inputs (such as a model&apos;s inputs.npz)</source>
        <translation>从一个 .npz 文件加载全部输入，其中的数组以输入名称命名（例如模型附带的 inputs.npz）</translation>
    </message>
    <message>
        <source>size of {name} in every input that uses it; below 0: auto (the input&apos;s file or image, or what the model needs)</source>
        <translation>{name} 在所有使用它的输入中的大小；小于 0 为自动（取自输入的文件或图像，或模型运行所需的大小）</translation>
    </message>
    <message>
        <source>from the image</source>
        <translation>取自图像</translation>
    </message>
    <message>
        <source>Load all inputs</source>
        <translation>加载全部输入</translation>
    </message>
    <message>
        <source>{path}: no array is named like an input of this model (it has {names}; the inputs are {inputs})</source>
        <translation>{path}：没有与本模型输入同名的数组（文件中有 {names}；模型的输入为 {inputs}）</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Loaded {names} from {path}</source>
        <translation>已从 {path} 加载 {names}</translation>
    </message>
    <message>
        <source>not in the file, kept as they were: {names}</source>
        <translation>文件中没有、保持原设置的输入：{names}</translation>
    </message>
    <message>
        <source>the model has no input {names} (ignored)</source>
        <translation>模型没有输入 {names}（已忽略）</translation>
    </message>
    <message>
        <source>from the file</source>
        <translation>取自文件</translation>
    </message>
    <message>
        <source>auto: {size}</source>
        <translation>自动：{size}</translation>
    </message>
</context>
<context>
    <name>IterationChoice</name>
    <message>
        <source>Loop iteration shown:</source>
        <translation>显示的循环迭代：</translation>
    </message>
    <message>
        <source>last</source>
        <translation>最后一次</translation>
    </message>
    <message>
        <source>Which iteration of the loop body shown on the canvas its value tags come from (earlier ones are kept with &quot;every iteration&quot;)</source>
        <translation>画布上所示循环体的数值标签来自哪一次迭代（较早的迭代需勾选“每次迭代”才会保留）</translation>
    </message>
    <message>
        <source>iteration {i} of {n} was not kept: turn on &quot;every iteration&quot; and run again</source>
        <translation>{n} 次迭代中的第 {i} 次未保留：请勾选“每次迭代”后重新运行</translation>
    </message>
</context>
<context>
    <name>Language</name>
    <message>
        <source>System Language</source>
        <translation>系统语言</translation>
    </message>
    <message>
        <source>The language changes when onnxstudio is started again.</source>
        <translation>重新启动 onnxstudio 后语言才会更改。</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
</context>
<context>
    <name>LayoutJob</name>
    <message>
        <source>This graph would need {boxes} boxes on one canvas; onnxstudio draws at most {most}. Its nodes, search and properties are still there.</source>
        <translation>此图需要在一张画布上绘制 {boxes} 个框；onnxstudio 最多绘制 {most} 个。其节点、搜索和属性仍然可用。</translation>
    </message>
    <message>
        <source>Layout failed</source>
        <translation>布局失败</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>ONNX models (*.onnx *.onnxtxt *.pb);;All files (*)</source>
        <translation>ONNX 模型 (*.onnx *.onnxtxt *.pb);;所有文件 (*)</translation>
    </message>
    <message>
        <source>the saved window layout does not fit this version; using the default</source>
        <translation>保存的窗口布局不适用于此版本；改用默认布局</translation>
    </message>
    <message>
        <source>Settings: </source>
        <translation>设置：</translation>
    </message>
    <message>
        <source>Open a model with Ctrl+O or drop a file here</source>
        <translation>按 Ctrl+O 打开模型，或将文件拖放到此处</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>Open &amp;Demo Model</source>
        <translation>打开示例模型(&amp;D)</translation>
    </message>
    <message>
        <source>Compare &amp;With…</source>
        <translation>比较(&amp;W)…</translation>
    </message>
    <message>
        <source>Show &amp;Changes Since Save</source>
        <translation>显示自保存以来的更改(&amp;C)</translation>
    </message>
    <message>
        <source>Compare the saved file with the model as edited (enabled when there are unsaved changes)</source>
        <translation>将已保存的文件与编辑后的模型进行比较（有未保存的更改时可用）</translation>
    </message>
    <message>
        <source>Export &amp;Graph as SVG/PNG…</source>
        <translation>将整个图导出为 SVG/PNG(&amp;G)…</translation>
    </message>
    <message>
        <source>Export &amp;Visible Area as SVG/PNG…</source>
        <translation>将可见区域导出为 SVG/PNG(&amp;V)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Fit Graph</source>
        <translation>适应窗口(&amp;F)</translation>
    </message>
    <message>
        <source>Zoom &amp;In</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <source>Zoom to &amp;Selection</source>
        <translation>缩放到所选内容(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Back</source>
        <translation>后退(&amp;B)</translation>
    </message>
    <message>
        <source>For&amp;ward</source>
        <translation>前进(&amp;W)</translation>
    </message>
    <message>
        <source>&amp;Expand All Groups</source>
        <translation>展开所有分组(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Collapse All Groups</source>
        <translation>折叠所有分组(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>System</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>&amp;Go</source>
        <translation>转到(&amp;G)</translation>
    </message>
    <message>
        <source>&amp;Find…</source>
        <translation>查找(&amp;F)…</translation>
    </message>
    <message>
        <source>&amp;Back to Enclosing Graph</source>
        <translation>返回上层图(&amp;B)</translation>
    </message>
    <message>
        <source>&amp;Model Properties</source>
        <translation>模型属性(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About onnxstudio</source>
        <translation>关于 onnxstudio(&amp;A)</translation>
    </message>
    <message>
        <source>Open ONNX model</source>
        <translation>打开 ONNX 模型</translation>
    </message>
    <message>
        <source>Cannot open model</source>
        <translation>无法打开模型</translation>
    </message>
    <message>
        <source>{path}: no such file</source>
        <translation>{path}：文件不存在</translation>
    </message>
    <message>
        <source>Loading {name}…</source>
        <translation>正在加载 {name}…</translation>
    </message>
    <message>
        <source>Layout failed</source>
        <translation>布局失败</translation>
    </message>
    <message>
        <source>Cancelled: the graph stays as it was</source>
        <translation>已取消：图保持原样</translation>
    </message>
    <message>
        <source>Cancelled: open the file again to see it</source>
        <translation>已取消：再次打开该文件即可查看</translation>
    </message>
    <message>
        <source> · layout: {engine} (cached)</source>
        <translation> · 布局：{engine}（缓存）</translation>
    </message>
    <message>
        <source> · layout: {engine}</source>
        <translation> · 布局：{engine}</translation>
    </message>
    <message>
        <source>the main graph</source>
        <translation>主图</translation>
    </message>
    <message>
        <source>{n} box</source>
        <translation>{n} 个框</translation>
    </message>
    <message>
        <source>{n} boxes</source>
        <translation>{n} 个框</translation>
    </message>
    <message>
        <source>{n} edge</source>
        <translation>{n} 条边</translation>
    </message>
    <message>
        <source>{n} edges</source>
        <translation>{n} 条边</translation>
    </message>
    <message>
        <source>{boxes}, {edges} in {where}</source>
        <translation>{where}中有 {boxes}、{edges}</translation>
    </message>
    <message>
        <source>Clear Recent Files</source>
        <translation>清除最近文件</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>SVG image (*.svg);;PNG image (*.png)</source>
        <translation>SVG 图像 (*.svg);;PNG 图像 (*.png)</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>Exported {path}</source>
        <translation>已导出 {path}</translation>
    </message>
    <message>
        <source>About onnxstudio</source>
        <translation>关于 onnxstudio</translation>
    </message>
    <message>
        <source>onnxstudio — explore, edit and step through ONNX models.</source>
        <translation>onnxstudio —— 浏览、编辑并逐步执行 ONNX 模型。</translation>
    </message>
</context>
<context>
    <name>Minimap</name>
    <message>
        <source>Overview: click or drag to move the view</source>
        <translation>概览：单击或拖动以移动视图</translation>
    </message>
</context>
<context>
    <name>ModelEditor</name>
    <message>
        <source>model-local functions</source>
        <translation>模型内函数</translation>
    </message>
    <message>
        <source>&lt;b&gt;Model&lt;/b&gt;</source>
        <translation>&lt;b&gt;模型&lt;/b&gt;</translation>
    </message>
    <message>
        <source>IR version</source>
        <translation>IR 版本</translation>
    </message>
    <message>
        <source>producer</source>
        <translation>生产者</translation>
    </message>
    <message>
        <source>producer version</source>
        <translation>生产者版本</translation>
    </message>
    <message>
        <source>domain</source>
        <translation>域</translation>
    </message>
    <message>
        <source>model version</source>
        <translation>模型版本</translation>
    </message>
    <message>
        <source>doc_string</source>
        <translation>doc_string</translation>
    </message>
    <message>
        <source>&lt;b&gt;Opset imports&lt;/b&gt;</source>
        <translation>&lt;b&gt;算子集导入&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>version</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>import</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>&lt;b&gt;Graph&lt;/b&gt;</source>
        <translation>&lt;b&gt;图&lt;/b&gt;</translation>
    </message>
    <message>
        <source>name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>dims: 1, 3, N, ?</source>
        <translation>维度：1, 3, N, ?</translation>
    </message>
    <message>
        <source>Add input</source>
        <translation>添加输入</translation>
    </message>
    <message>
        <source>new input</source>
        <translation>新输入</translation>
    </message>
    <message>
        <source>name of an existing value</source>
        <translation>已有值的名称</translation>
    </message>
    <message>
        <source>Add output</source>
        <translation>添加输出</translation>
    </message>
    <message>
        <source>new output</source>
        <translation>新输出</translation>
    </message>
    <message>
        <source>sizes: 16, 3</source>
        <translation>大小：16, 3</translation>
    </message>
    <message>
        <source>Add initializer</source>
        <translation>添加初始化器</translation>
    </message>
    <message>
        <source>A constant of zeros: connect it to a node&apos;s input, then set its values in the tensor editor</source>
        <translation>全零常量：把它连到节点的输入，再在张量编辑器中设置其值</translation>
    </message>
    <message>
        <source>new initializer</source>
        <translation>新初始化器</translation>
    </message>
    <message>
        <source>&lt;b&gt;Metadata&lt;/b&gt;</source>
        <translation>&lt;b&gt;元数据&lt;/b&gt;</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Remove selected</source>
        <translation>删除所选</translation>
    </message>
    <message>
        <source>{message} — not changed.</source>
        <translation>{message} —— 未更改。</translation>
    </message>
    <message>
        <source>{field}: {value} is out of range</source>
        <translation>{field}：{value} 超出范围</translation>
    </message>
    <message>
        <source>IR version {have} is below {need}, which {why} needs: runtimes may refuse the file.</source>
        <translation>IR 版本 {have} 低于 {why} 所需的 {need}：运行时可能拒绝此文件。</translation>
    </message>
    <message>
        <source>opset {domain}: {error}</source>
        <translation>算子集 {domain}：{error}</translation>
    </message>
    <message>
        <source>opset {domain} is already imported; change its version above</source>
        <translation>算子集 {domain} 已导入；请在上方更改其版本</translation>
    </message>
    <message>
        <source>metadata key {key} is empty or already used</source>
        <translation>元数据键 {key} 为空或已被使用</translation>
    </message>
    <message>
        <source>Rename metadata {old} to {new}</source>
        <translation>将元数据 {old} 重命名为 {new}</translation>
    </message>
    <message>
        <source>give the metadata entry a key</source>
        <translation>请为元数据条目指定键</translation>
    </message>
    <message>
        <source>metadata key {key} is already used</source>
        <translation>元数据键 {key} 已被使用</translation>
    </message>
    <message>
        <source>select the metadata rows to remove</source>
        <translation>请选择要删除的元数据行</translation>
    </message>
    <message>
        <source>Remove metadata</source>
        <translation>删除元数据</translation>
    </message>
    <message>
        <source>give the new input a name</source>
        <translation>请为新输入命名</translation>
    </message>
    <message>
        <source>input {name}: {error}</source>
        <translation>输入 {name}：{error}</translation>
    </message>
    <message>
        <source>give the new initializer a name</source>
        <translation>请为新初始化器命名</translation>
    </message>
    <message>
        <source>initializer {name}: {error}</source>
        <translation>初始化器 {name}：{error}</translation>
    </message>
    <message>
        <source>initializer {name}: its data needs a size for every dim, not {dim}</source>
        <translation>初始化器 {name}：其数据的每个维度都需要具体大小，不能是 {dim}</translation>
    </message>
    <message>
        <source>initializer {name}: {size} elements is more than a tensor typed here may hold; import a .npy into a smaller one</source>
        <translation>初始化器 {name}：{size} 个元素超出此处可输入的张量大小；请先建一个较小的，再导入 .npy</translation>
    </message>
    <message>
        <source>name the value to make a graph output</source>
        <translation>请指定要设为图输出的值的名称</translation>
    </message>
</context>
<context>
    <name>Navigation</name>
    <message>
        <source>main graph</source>
        <translation>主图</translation>
    </message>
    <message>
        <source>body</source>
        <translation>子图</translation>
    </message>
</context>
<context>
    <name>NodeEditor</name>
    <message>
        <source>Change op of {node} to {op}</source>
        <translation>将 {node} 的算子改为 {op}</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Change…</source>
        <translation>更改…</translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>(empty)</source>
        <translation>（空）</translation>
    </message>
    <message>
        <source>Leave this optional input empty</source>
        <translation>将此可选输入留空</translation>
    </message>
    <message>
        <source>Attributes</source>
        <translation>属性</translation>
    </message>
    <message>
        <source>attribute &quot;{name}&quot;: {problem}</source>
        <translation>属性“{name}”：{problem}</translation>
    </message>
    <message>
        <source>Remove attribute {name}</source>
        <translation>删除属性 {name}</translation>
    </message>
    <message>
        <source>attribute name</source>
        <translation>属性名</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>{node}: {problem} — not changed.</source>
        <translation>{node}：{problem} —— 未更改。</translation>
    </message>
    <message>
        <source>the name {name} is already used by another node</source>
        <translation>名称 {name} 已被另一个节点使用</translation>
    </message>
    <message>
        <source>input {index}: no value named {name} is visible here</source>
        <translation>输入 {index}：此处看不到名为 {name} 的值</translation>
    </message>
    <message>
        <source>give the new attribute a name</source>
        <translation>请为新属性命名</translation>
    </message>
    <message>
        <source>attribute &quot;{name}&quot; is already there</source>
        <translation>属性“{name}”已存在</translation>
    </message>
    <message>
        <source>attribute &quot;{name}&quot; ({type}) cannot be added here</source>
        <translation>无法在此添加属性“{name}”（{type}）</translation>
    </message>
    <message>
        <source>Change the operator</source>
        <translation>更改算子</translation>
    </message>
</context>
<context>
    <name>OpPalette</name>
    <message>
        <source>Operators</source>
        <translation>算子</translation>
    </message>
    <message>
        <source>Type to search operators…</source>
        <translation>输入以搜索算子…</translation>
    </message>
    <message>
        <source>Drag onto an edge to insert, onto the canvas to add; Enter adds after the selected node. Esc clears the search, then closes.</source>
        <translation>拖到边上即插入，拖到画布空白处即添加；回车则添加在所选节点之后。Esc 先清空搜索，再按一次关闭。</translation>
    </message>
</context>
<context>
    <name>OpPicker</name>
    <message>
        <source>Choose an operator</source>
        <translation>选择算子</translation>
    </message>
    <message>
        <source>Type to search operators…</source>
        <translation>输入以搜索算子…</translation>
    </message>
</context>
<context>
    <name>OpSignature</name>
    <message>
        <source>{name}: {type} (required)</source>
        <translation>{name}: {type}（必需）</translation>
    </message>
    <message>
        <source>No signature known (a model-local function or a custom domain).</source>
        <translation>没有已知签名（模型本地函数或自定义域）。</translation>
    </message>
    <message>
        <source>attributes</source>
        <translation>属性</translation>
    </message>
</context>
<context>
    <name>ProblemCodes</name>
    <message>
        <source>ir_version is not set</source>
        <translation>未设置 ir_version</translation>
    </message>
    <message>
        <source>ir_version is newer than any this checker knows</source>
        <translation>ir_version 比检查器已知的任何版本都新</translation>
    </message>
    <message>
        <source>IR &gt;= 3 needs opset_import</source>
        <translation>IR &gt;= 3 时必须有 opset_import</translation>
    </message>
    <message>
        <source>IR &lt; 3 cannot have opset_import</source>
        <translation>IR &lt; 3 时不能有 opset_import</translation>
    </message>
    <message>
        <source>a domain is imported twice with different versions</source>
        <translation>同一个域以不同版本导入了两次</translation>
    </message>
    <message>
        <source>the same domain and version imported twice</source>
        <translation>同一个域和版本重复导入</translation>
    </message>
    <message>
        <source>an imported opset version is not positive</source>
        <translation>导入的 opset 版本不是正数</translation>
    </message>
    <message>
        <source>an imported opset newer than any the checker knows (it checks against its newest)</source>
        <translation>导入的 opset 比检查器已知的都新（按已知的最新版本检查）</translation>
    </message>
    <message>
        <source>metadata_props has a key twice</source>
        <translation>metadata_props 中有重复的键</translation>
    </message>
    <message>
        <source>a field or element type the declared IR version does not have</source>
        <translation>使用了所声明的 IR 版本中没有的字段或元素类型</translation>
    </message>
    <message>
        <source>graph has no name</source>
        <translation>图没有名称</translation>
    </message>
    <message>
        <source>graph input or output with an empty name</source>
        <translation>图输入或输出的名称为空</translation>
    </message>
    <message>
        <source>two graph inputs share a name</source>
        <translation>两个图输入同名</translation>
    </message>
    <message>
        <source>a subgraph input hides a name of the enclosing graph</source>
        <translation>子图输入遮蔽了外层图中的同名值</translation>
    </message>
    <message>
        <source>a top-level input/output has no type</source>
        <translation>顶层输入/输出没有类型</translation>
    </message>
    <message>
        <source>a top-level tensor input/output has no shape</source>
        <translation>顶层张量输入/输出没有形状</translation>
    </message>
    <message>
        <source>a top-level input/output type has no element type</source>
        <translation>顶层输入/输出的类型没有元素类型</translation>
    </message>
    <message>
        <source>initializer without a name</source>
        <translation>初始化器没有名称</translation>
    </message>
    <message>
        <source>two (sparse) initializers share a name</source>
        <translation>两个（稀疏）初始化器同名</translation>
    </message>
    <message>
        <source>IR &lt; 4: an initializer that is not a graph input</source>
        <translation>IR &lt; 4：初始化器不是图输入</translation>
    </message>
    <message>
        <source>a name is defined twice (SSA)</source>
        <translation>同一名称被定义了两次（违反 SSA）</translation>
    </message>
    <message>
        <source>a node input that nothing defines</source>
        <translation>节点输入未定义</translation>
    </message>
    <message>
        <source>a node input defined only by a later node</source>
        <translation>节点输入只由其后的节点定义（不是拓扑顺序）</translation>
    </message>
    <message>
        <source>nodes that depend on each other</source>
        <translation>节点之间存在循环依赖</translation>
    </message>
    <message>
        <source>a graph output that no node, input or initializer defines</source>
        <translation>图输出未被任何节点、输入或初始化器定义</translation>
    </message>
    <message>
        <source>two value_info entries share a name</source>
        <translation>两个 value_info 条目同名</translation>
    </message>
    <message>
        <source>value_info for a name nothing defines</source>
        <translation>value_info 描述的名称未被定义</translation>
    </message>
    <message>
        <source>value_info disagrees with the declared type of a graph input/output</source>
        <translation>value_info 与图输入/输出声明的类型不一致</translation>
    </message>
    <message>
        <source>a graph output that is a graph input of the same name, declared with another element type</source>
        <translation>与同名图输入是同一个值、却声明了另一种元素类型的图输出</translation>
    </message>
    <message>
        <source>a tensor type in value_info or a subgraph input/output without an element type</source>
        <translation>value_info 或子图输入/输出中的张量类型没有元素类型</translation>
    </message>
    <message>
        <source>a declared type (graph input/output, value_info) that contradicts the type its producer gives it (inference&apos;s, or the graph input a pass-through output is)</source>
        <translation>声明的类型（图输入/输出、value_info）与其产生者给出的类型矛盾（推断得出的类型，或直通输出所对应的图输入）</translation>
    </message>
    <message>
        <source>a name that is not a C identifier</source>
        <translation>名称不是合法的 C 标识符</translation>
    </message>
    <message>
        <source>a name, op_type, domain, attribute name, doc string, metadata entry or other text the file holds as invalid UTF-8 (a damaged file)</source>
        <translation>文件中不是有效 UTF-8 的名称、op_type、域、属性名、文档字符串、元数据条目或其他文本（文件已损坏）</translation>
    </message>
    <message>
        <source>node has no op_type</source>
        <translation>节点没有 op_type</translation>
    </message>
    <message>
        <source>node has neither inputs nor outputs</source>
        <translation>节点既没有输入也没有输出</translation>
    </message>
    <message>
        <source>the node&apos;s domain is not imported</source>
        <translation>节点所属的域未导入</translation>
    </message>
    <message>
        <source>no such operator in a standard domain</source>
        <translation>标准域中没有这个算子</translation>
    </message>
    <message>
        <source>operator newer than the imported opset</source>
        <translation>算子比导入的 opset 版本新</translation>
    </message>
    <message>
        <source>operator is deprecated at the imported opset</source>
        <translation>算子在导入的 opset 中已弃用</translation>
    </message>
    <message>
        <source>operator of a custom domain with no known signature</source>
        <translation>自定义域的算子，签名未知</translation>
    </message>
    <message>
        <source>an operator of early ONNX&apos;s experimental set, since dropped from the standard</source>
        <translation>早期 ONNX 实验性算子集中的算子，后已从标准中移除</translation>
    </message>
    <message>
        <source>too few or too many inputs</source>
        <translation>输入个数过少或过多</translation>
    </message>
    <message>
        <source>too few or too many outputs</source>
        <translation>输出个数过少或过多</translation>
    </message>
    <message>
        <source>a non-optional input or output is given as empty</source>
        <translation>非可选的输入或输出被留空</translation>
    </message>
    <message>
        <source>a variadic formal has fewer actuals than its minimum</source>
        <translation>可变参数的实参个数少于最小要求</translation>
    </message>
    <message>
        <source>an input/output type outside the operator&apos;s constraint</source>
        <translation>输入/输出类型不在算子的类型约束范围内</translation>
    </message>
    <message>
        <source>actuals bound to one type parameter have different types</source>
        <translation>绑定到同一类型参数的实参类型不一致</translation>
    </message>
    <message>
        <source>an output declared with another type than the operator&apos;s attribute gives it</source>
        <translation>输出声明的类型与算子属性决定的类型不同</translation>
    </message>
    <message>
        <source>a call to a model function with more inputs/outputs than it declares</source>
        <translation>调用模型函数时给出的输入/输出多于函数声明的个数</translation>
    </message>
    <message>
        <source>an operator that takes exactly one of two things (Resize&apos;s scales and sizes, Split&apos;s split input and num_outputs) got both or neither</source>
        <translation>算子只接受两者中的一个（Resize 的 scales 与 sizes，Split 的 split 输入与 num_outputs），却两个都给了或都没给</translation>
    </message>
    <message>
        <source>a subgraph whose input or output count does not fit its node (If branches, Loop and Scan bodies)</source>
        <translation>子图的输入或输出个数与所属节点不符（If 的分支、Loop 与 Scan 的循环体）</translation>
    </message>
    <message>
        <source>attribute without a name</source>
        <translation>属性没有名称</translation>
    </message>
    <message>
        <source>attribute given twice on one node</source>
        <translation>同一节点上的属性重复</translation>
    </message>
    <message>
        <source>IR &gt;= 2: attribute without a type field</source>
        <translation>IR &gt;= 2：属性缺少 type 字段</translation>
    </message>
    <message>
        <source>the value field set does not match the type field</source>
        <translation>已设置的值字段与 type 字段不符</translation>
    </message>
    <message>
        <source>more than one value field set</source>
        <translation>设置了多个值字段</translation>
    </message>
    <message>
        <source>a non-list attribute with no value field</source>
        <translation>非列表属性没有设置值字段</translation>
    </message>
    <message>
        <source>an attribute set from Python to a value its type cannot carry</source>
        <translation>从 Python 设置的属性值无法用其类型表示</translation>
    </message>
    <message>
        <source>attribute the operator does not define</source>
        <translation>算子没有定义这个属性</translation>
    </message>
    <message>
        <source>attribute type differs from the operator&apos;s</source>
        <translation>属性类型与算子定义的不同</translation>
    </message>
    <message>
        <source>a required attribute is missing</source>
        <translation>缺少必需的属性</translation>
    </message>
    <message>
        <source>ref_attr_name used outside a function body</source>
        <translation>在函数体之外使用了 ref_attr_name</translation>
    </message>
    <message>
        <source>ref_attr_name together with a value</source>
        <translation>同时设置了 ref_attr_name 和属性值</translation>
    </message>
    <message>
        <source>ref_attr_name names no attribute of the function</source>
        <translation>ref_attr_name 引用的属性在函数中不存在</translation>
    </message>
    <message>
        <source>none or several of a group of attributes of which the operator takes exactly one (Constant&apos;s value attributes, LabelEncoder&apos;s keys_* and values_*, ZipMap&apos;s labels)</source>
        <translation>一组属性中算子只接受恰好一个，却一个都没给或给了多个（Constant 的 value 类属性，LabelEncoder 的 keys_* 与 values_*，ZipMap 的 classlabels_*）</translation>
    </message>
    <message>
        <source>an attribute naming an element type (Cast&apos;s to, dtype) holds no ONNX element type</source>
        <translation>表示元素类型的属性（Cast 的 to、dtype）不是 ONNX 元素类型</translation>
    </message>
    <message>
        <source>two list attributes that pair up entry by entry have different lengths (LabelEncoder&apos;s keys and values)</source>
        <translation>两个逐项对应的列表属性长度不同（LabelEncoder 的 keys 与 values）</translation>
    </message>
    <message>
        <source>an attribute value the operator rules out (a window size, stride or dilation below 1, a negative pad, a ConstantOfShape value that is not one element, num_scan_inputs above the inputs, a Resize mode it does not have)</source>
        <translation>算子不允许的属性值（窗口大小、步长或膨胀小于 1，填充为负，ConstantOfShape 的 value 不是单个元素，num_scan_inputs 多于输入个数，Resize 没有的模式）</translation>
    </message>
    <message>
        <source>two known dims, both other than 1, that a broadcasting operator cannot broadcast</source>
        <translation>广播运算中两个已知维度不相等且都不为 1，无法广播</translation>
    </message>
    <message>
        <source>an input whose known rank the operator, its attributes or its other inputs rule out</source>
        <translation>输入的已知秩与算子、其属性或其他输入的要求不符</translation>
    </message>
    <message>
        <source>two known dims the operator needs equal differ (MatMul/Gemm inner dims, Concat&apos;s other axes, channels, split sizes)</source>
        <translation>算子要求相等的两个已知维度不相等（MatMul/Gemm 的内侧维度、Concat 拼接轴以外的维度、通道数、split 各段长度之和）</translation>
    </message>
    <message>
        <source>Reshape&apos;s target shape is invalid or cannot hold the input&apos;s elements</source>
        <translation>Reshape 的目标形状无效，或与输入的元素个数不符</translation>
    </message>
    <message>
        <source>a symbolic dim that the model&apos;s fixed numbers (a Reshape&apos;s target, a weight&apos;s size) allow only one size of, as in an export traced at one size: other sizes fail at run</source>
        <translation>模型中的固定数值（Reshape 的目标形状、权重的尺寸）只允许一种取值的符号维度，如同按单一尺寸导出的模型：其他尺寸在运行时会失败</translation>
    </message>
    <message>
        <source>a constant index outside a known axis size</source>
        <translation>常量索引超出已知轴长度的范围</translation>
    </message>
    <message>
        <source>an axis (attribute or constant input) outside the input&apos;s rank, or given twice</source>
        <translation>轴（属性或常量输入）超出输入的秩的范围，或被重复给出</translation>
    </message>
    <message>
        <source>Transpose&apos;s perm is not a permutation of the input&apos;s axes</source>
        <translation>Transpose 的 perm 不是输入各轴的一个排列</translation>
    </message>
    <message>
        <source>a per-axis attribute (kernel_shape, strides, pads, ...) whose length does not fit the input&apos;s rank</source>
        <translation>逐轴属性（kernel_shape、strides、pads 等）的长度与输入的秩不符</translation>
    </message>
    <message>
        <source>tensor with data_type UNDEFINED</source>
        <translation>张量的 data_type 为 UNDEFINED</translation>
    </message>
    <message>
        <source>tensor with an unknown data_type</source>
        <translation>张量的 data_type 未知</translation>
    </message>
    <message>
        <source>tensor with a negative dim</source>
        <translation>张量有负数维度</translation>
    </message>
    <message>
        <source>more than one data field set</source>
        <translation>设置了多个数据字段</translation>
    </message>
    <message>
        <source>a non-empty tensor with no data</source>
        <translation>非空张量没有数据</translation>
    </message>
    <message>
        <source>a 0-element tensor carrying data</source>
        <translation>0 元素张量却带有数据</translation>
    </message>
    <message>
        <source>data length does not match dims and type</source>
        <translation>数据长度与维度和类型不符</translation>
    </message>
    <message>
        <source>a typed data field that does not fit data_type</source>
        <translation>类型化数据字段与 data_type 不匹配</translation>
    </message>
    <message>
        <source>string tensor stored in raw_data</source>
        <translation>字符串张量存放在 raw_data 中</translation>
    </message>
    <message>
        <source>external tensor that also has inline data</source>
        <translation>外部数据张量同时带有内联数据</translation>
    </message>
    <message>
        <source>unknown or repeated external_data key</source>
        <translation>external_data 的键未知或重复</translation>
    </message>
    <message>
        <source>external data location missing, absolute or outside the model folder</source>
        <translation>外部数据的 location 缺失、是绝对路径或在模型目录之外</translation>
    </message>
    <message>
        <source>external data file does not exist</source>
        <translation>外部数据文件不存在</translation>
    </message>
    <message>
        <source>offset/length invalid or beyond the end of the file</source>
        <translation>offset/length 无效或超出文件末尾</translation>
    </message>
    <message>
        <source>external data not checked: the model has no folder</source>
        <translation>未检查外部数据：模型没有所在目录</translation>
    </message>
    <message>
        <source>sparse values must be 1-D</source>
        <translation>稀疏张量的 values 必须是一维的</translation>
    </message>
    <message>
        <source>sparse dims must be positive</source>
        <translation>稀疏张量的 dims 必须为正数</translation>
    </message>
    <message>
        <source>sparse indices must be int64</source>
        <translation>稀疏张量的 indices 必须是 int64</translation>
    </message>
    <message>
        <source>sparse indices shape does not fit values/dims</source>
        <translation>稀疏张量 indices 的形状与 values/dims 不符</translation>
    </message>
    <message>
        <source>a sparse index is out of range</source>
        <translation>稀疏索引越界</translation>
    </message>
    <message>
        <source>sparse indices are not strictly increasing</source>
        <translation>稀疏索引不是严格递增的</translation>
    </message>
    <message>
        <source>sparse initializer without a name</source>
        <translation>稀疏初始化器没有名称</translation>
    </message>
    <message>
        <source>function without a name</source>
        <translation>函数没有名称</translation>
    </message>
    <message>
        <source>function without a domain</source>
        <translation>函数没有域</translation>
    </message>
    <message>
        <source>two functions with the same (domain, name, overload)</source>
        <translation>两个函数的（域、名称、overload）相同</translation>
    </message>
    <message>
        <source>function formal input twice</source>
        <translation>函数的形参输入重复</translation>
    </message>
    <message>
        <source>function formal output twice</source>
        <translation>函数的形参输出重复</translation>
    </message>
    <message>
        <source>function attribute declared twice</source>
        <translation>函数属性重复声明</translation>
    </message>
    <message>
        <source>function output nothing in the body produces</source>
        <translation>函数输出未由函数体中的任何节点产生</translation>
    </message>
    <message>
        <source>functions that call each other in a cycle</source>
        <translation>函数之间循环调用</translation>
    </message>
    <message>
        <source>function imports an opset whose operator version differs from the model&apos;s</source>
        <translation>函数导入的 opset 中算子版本与模型的不同</translation>
    </message>
    <message>
        <source>binding key is not an initializer of the main graph</source>
        <translation>绑定的键不是主图的初始化器</translation>
    </message>
    <message>
        <source>binding value is not an output of the training graph</source>
        <translation>绑定的值不是训练图的输出</translation>
    </message>
    <message>
        <source>an initializer bound twice</source>
        <translation>初始化器被绑定了两次</translation>
    </message>
    <message>
        <source>the checker itself failed on this part (a bug: please report)</source>
        <translation>检查器本身在这一部分出错（这是缺陷，请报告）</translation>
    </message>
</context>
<context>
    <name>ProblemsPanel</name>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>info</source>
        <translation>信息</translation>
    </message>
    <message>
        <source>Errors and warnings</source>
        <translation>错误和警告</translation>
    </message>
    <message>
        <source>Errors</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Everything</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>Filter problems…</source>
        <translation>筛选问题…</translation>
    </message>
    <message>
        <source>Place</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Code</source>
        <translation>代码</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message>
        <source>not checked: an error of ours stopped the checker ({reason}); the model is as loaded, please report it</source>
        <translation>未检查：本程序的错误使检查器停止（{reason}）；模型保持加载时的样子，请报告此问题</translation>
    </message>
    <message>
        <source>{meaning}: {message}</source>
        <translation>{meaning}：{message}</translation>
    </message>
    <message>
        <source> (first {n} shown)</source>
        <translation>（仅显示前 {n} 条）</translation>
    </message>
    <message numerus="yes">
        <source>%n error</source>
        <translation>
            <numerusform>%n 个错误</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n errors</source>
        <translation>
            <numerusform>%n 个错误</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n warning</source>
        <translation>
            <numerusform>%n 个警告</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n warnings</source>
        <translation>
            <numerusform>%n 个警告</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n note</source>
        <translation>
            <numerusform>%n 条提示</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n notes</source>
        <translation>
            <numerusform>%n 条提示</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ProfileUI</name>
    <message>
        <source>&amp;Profile Run</source>
        <translation>性能分析运行(&amp;P)</translation>
    </message>
    <message>
        <source>Run the model a few times, timing every node: heat on the canvas, the slowest nodes and op types in the Profile dock</source>
        <translation>运行模型数次并为每个节点计时：画布上显示热度，性能分析面板列出最慢的节点和算子类型</translation>
    </message>
    <message>
        <source>Profile with onnx&amp;runtime</source>
        <translation>用 onnxruntime 分析性能(&amp;R)</translation>
    </message>
    <message>
        <source>onnxruntime&apos;s own profile of the model, its kernels tied back to the nodes</source>
        <translation>onnxruntime 自己的模型性能分析，其内核对应回节点</translation>
    </message>
    <message>
        <source>Open onnxruntime Pro&amp;file…</source>
        <translation>打开 onnxruntime 性能分析文件(&amp;F)…</translation>
    </message>
    <message>
        <source>A profile onnxruntime wrote for this model (enable_profiling), its kernels tied back to the nodes</source>
        <translation>onnxruntime 为此模型写出的性能分析文件（enable_profiling），其内核对应回节点</translation>
    </message>
    <message>
        <source>Open a model first</source>
        <translation>请先打开模型</translation>
    </message>
    <message>
        <source>Profiling with onnxruntime…</source>
        <translation>正在用 onnxruntime 分析性能…</translation>
    </message>
    <message>
        <source>Profiling: {runs} runs, every node timed…</source>
        <translation>正在分析性能：运行 {runs} 次，为每个节点计时…</translation>
    </message>
    <message>
        <source>Open onnxruntime profile</source>
        <translation>打开 onnxruntime 性能分析文件</translation>
    </message>
    <message>
        <source>onnxruntime profiles (*.json)</source>
        <translation>onnxruntime 性能分析文件 (*.json)</translation>
    </message>
    <message>
        <source>Profiled: {wall} a run</source>
        <translation>性能分析完成：每次运行 {wall}</translation>
    </message>
    <message>
        <source>slowest node {node} ({share})</source>
        <translation>最慢的节点 {node}（{share}）</translation>
    </message>
</context>
<context>
    <name>ProfileView</name>
    <message>
        <source>Profile a run (Run ▸ Profile Run) to see where its time goes</source>
        <translation>分析一次运行的性能（运行 ▸ 性能分析运行），查看时间花在哪里</translation>
    </message>
    <message>
        <source>Heat on the canvas</source>
        <translation>在画布上显示热度</translation>
    </message>
    <message>
        <source>Compare with the previous profile</source>
        <translation>与上一次性能分析比较</translation>
    </message>
    <message>
        <source>Share</source>
        <translation>占比</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>变化</translation>
    </message>
    <message>
        <source>Op type</source>
        <translation>算子类型</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>节点数</translation>
    </message>
    <message>
        <source>Slowest nodes</source>
        <translation>最慢的节点</translation>
    </message>
    <message>
        <source>Op types</source>
        <translation>算子类型</translation>
    </message>
    <message>
        <source>the built-in executor</source>
        <translation>内置执行器</translation>
    </message>
    <message>
        <source>{runs} runs with {who}: {wall} a run, {nodes} in nodes</source>
        <translation>用{who}运行 {runs} 次：每次运行 {wall}，节点内 {nodes}</translation>
    </message>
    <message>
        <source>{share} of the time not tied to a node</source>
        <translation>{share} 的时间未能对应到节点</translation>
    </message>
    <message>
        <source>the previous profile: {wall} a run ({delta})</source>
        <translation>上一次性能分析：每次运行 {wall}（{delta}）</translation>
    </message>
    <message>
        <source>made before your last edit: profile again to see its effect</source>
        <translation>在您最近一次编辑之前生成：请再次分析以查看其效果</translation>
    </message>
    <message>
        <source> (with {n} merged)</source>
        <translation>（与 {n} 个节点合并）</translation>
    </message>
</context>
<context>
    <name>Prompter</name>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Discard</source>
        <translation>放弃</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Overwrite</source>
        <translation>覆盖</translation>
    </message>
    <message>
        <source>Recover</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Not now</source>
        <translation>暂不</translation>
    </message>
    <message>
        <source>Change rank</source>
        <translation>更改秩</translation>
    </message>
    <message>
        <source>{what} failed unexpectedly: {error}. The model was left as it was before.</source>
        <translation>{what}意外失败：{error}。模型保持原样未变。</translation>
    </message>
    <message>
        <source>Unexpected error</source>
        <translation>意外错误</translation>
    </message>
    <message>
        <source>Copy details</source>
        <translation>复制详细信息</translation>
    </message>
    <message>
        <source>Keep as they are</source>
        <translation>保持原样</translation>
    </message>
    <message>
        <source>All inside the model file</source>
        <translation>全部保存在模型文件中</translation>
    </message>
    <message>
        <source>In an external data file</source>
        <translation>保存在外部数据文件中</translation>
    </message>
</context>
<context>
    <name>PropertiesPanel</name>
    <message>
        <source>min</source>
        <translation>最小值</translation>
    </message>
    <message>
        <source>max</source>
        <translation>最大值</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>平均值</translation>
    </message>
    <message>
        <source>std</source>
        <translation>标准差</translation>
    </message>
    <message>
        <source>(omitted)</source>
        <translation>（省略）</translation>
    </message>
    <message>
        <source> · initializer</source>
        <translation> · 初始化器</translation>
    </message>
    <message>
        <source>No model open.</source>
        <translation>没有打开的模型。</translation>
    </message>
    <message>
        <source>Make {name} a Graph Output</source>
        <translation>将 {name} 设为图输出</translation>
    </message>
    <message>
        <source>name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>(unnamed)</source>
        <translation>（未命名）</translation>
    </message>
    <message>
        <source>domain</source>
        <translation>域</translation>
    </message>
    <message>
        <source>location</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>function</source>
        <translation>函数</translation>
    </message>
    <message>
        <source>open body</source>
        <translation>打开函数体</translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Outputs</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>Attributes</source>
        <translation>属性</translation>
    </message>
    <message>
        <source>Documentation</source>
        <translation>文档</translation>
    </message>
    <message>
        <source>graph {name} ({n} nodes)</source>
        <translation>图 {name}（{n} 个节点）</translation>
    </message>
    <message>
        <source>graph {i}</source>
        <translation>图 {i}</translation>
    </message>
    <message>
        <source>, … ({n} items)</source>
        <translation>，…（共 {n} 项）</translation>
    </message>
    <message>
        <source>type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>(inferred)</source>
        <translation>（推断）</translation>
    </message>
    <message>
        <source>producer</source>
        <translation>生产者</translation>
    </message>
    <message>
        <source>file</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>IR version</source>
        <translation>IR 版本</translation>
    </message>
    <message>
        <source>opsets</source>
        <translation>算子集</translation>
    </message>
    <message>
        <source>model version</source>
        <translation>模型版本</translation>
    </message>
    <message>
        <source>graph</source>
        <translation>图</translation>
    </message>
    <message>
        <source>nodes</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>initializers</source>
        <translation>初始化器</translation>
    </message>
    <message>
        <source>training info</source>
        <translation>训练信息</translation>
    </message>
    <message>
        <source>present</source>
        <translation>有</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Metadata</source>
        <translation>元数据</translation>
    </message>
    <message>
        <source>Functions</source>
        <translation>函数</translation>
    </message>
    <message>
        <source>{n} node</source>
        <translation>{n} 个节点</translation>
    </message>
    <message>
        <source>{n} nodes</source>
        <translation>{n} 个节点</translation>
    </message>
    <message>
        <source>graph {name} ({n} node)</source>
        <translation>图 {name}（{n} 个节点）</translation>
    </message>
    <message>
        <source>(sparse: {stored} of {total} elements stored)</source>
        <translation>（稀疏：存储了 {total} 个元素中的 {stored} 个）</translation>
    </message>
    <message>
        <source>graph input</source>
        <translation>图输入</translation>
    </message>
    <message>
        <source> … and {n} more</source>
        <translation> … 另有 {n} 个</translation>
    </message>
    <message>
        <source>consumers</source>
        <translation>使用者</translation>
    </message>
    <message>
        <source>graph output</source>
        <translation>图输出</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>Initializer</source>
        <translation>初始化器</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>dtype</source>
        <translation>数据类型</translation>
    </message>
    <message>
        <source>shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <source>stored</source>
        <translation>存储</translation>
    </message>
    <message>
        <source>sparse: {stored} of {total} elements ({size})</source>
        <translation>稀疏：{total} 个元素中的 {stored} 个（{size}）</translation>
    </message>
    <message>
        <source>size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>stored in</source>
        <translation>存储于</translation>
    </message>
    <message>
        <source>statistics</source>
        <translation>统计</translation>
    </message>
    <message>
        <source>not read yet ({size}): “Load values” in the editor below reads them</source>
        <translation>尚未读取（{size}）：下方编辑器中的“加载数值”会读取它们</translation>
    </message>
    <message>
        <source>data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>cannot be read: {error}</source>
        <translation>无法读取：{error}</translation>
    </message>
    <message>
        <source>Tensor</source>
        <translation>张量</translation>
    </message>
    <message>
        <source>Group {path}</source>
        <translation>分组 {path}</translation>
    </message>
    <message>
        <source>Double-click the box to expand it.</source>
        <translation>双击此框以展开。</translation>
    </message>
    <message>
        <source>Contents</source>
        <translation>内容</translation>
    </message>
</context>
<context>
    <name>QtDocument</name>
    <message>
        <source>Going back in the history</source>
        <translation>在历史中回退</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Redo</source>
        <translation>重做</translation>
    </message>
</context>
<context>
    <name>Recovery</name>
    <message>
        <source>Autosave failed: {error}</source>
        <translation>自动保存失败：{error}</translation>
    </message>
    <message>
        <source>Note: {why}; steps that no longer apply will be skipped.</source>
        <translation>注意：{why}；不再适用的步骤将被跳过。</translation>
    </message>
    <message>
        <source>Recover unsaved edits</source>
        <translation>恢复未保存的编辑</translation>
    </message>
    <message>
        <source>Cannot recover</source>
        <translation>无法恢复</translation>
    </message>
    <message>
        <source>{path}: the model file is gone; the recovery file {file} was kept.</source>
        <translation>{path}：模型文件已不存在；已保留恢复文件 {file}。</translation>
    </message>
    <message>
        <source>onnxstudio did not close normally. Unsaved edits of {name} ({n} step) were kept.</source>
        <translation>onnxstudio 上次未正常关闭。已保留 {name} 未保存的编辑（{n} 步）。</translation>
    </message>
    <message>
        <source>onnxstudio did not close normally. Unsaved edits of {name} ({n} steps) were kept.</source>
        <translation>onnxstudio 上次未正常关闭。已保留 {name} 未保存的编辑（{n} 步）。</translation>
    </message>
    <message>
        <source>edits kept at {time}</source>
        <translation>编辑保留于 {time}</translation>
    </message>
    <message>
        <source>opens the model and applies the steps again; the file on disk changes only when you save.</source>
        <translation>打开模型并重新应用这些步骤；只有保存时磁盘上的文件才会改变。</translation>
    </message>
    <message>
        <source>deletes the kept steps for good; the model file stays as it is.</source>
        <translation>永久删除保留的步骤；模型文件保持不变。</translation>
    </message>
    <message>
        <source>keeps the steps and asks again at the next start.</source>
        <translation>保留这些步骤，下次启动时再询问。</translation>
    </message>
    <message>
        <source>Recovered with gaps</source>
        <translation>恢复不完整</translation>
    </message>
    <message>
        <source>Recovered {n} of {total} step; these no longer apply and were skipped:
{skipped}</source>
        <translation>已恢复 {total} 步中的 {n} 步；以下步骤不再适用，已跳过：
{skipped}</translation>
    </message>
    <message>
        <source>Recovered {n} of {total} steps; these no longer apply and were skipped:
{skipped}</source>
        <translation>已恢复 {total} 步中的 {n} 步；以下步骤不再适用，已跳过：
{skipped}</translation>
    </message>
    <message>
        <source>Recovered {n} edit step of {name}</source>
        <translation>已恢复 {name} 的 {n} 个编辑步骤</translation>
    </message>
    <message>
        <source>Recovered {n} edit steps of {name}</source>
        <translation>已恢复 {name} 的 {n} 个编辑步骤</translation>
    </message>
</context>
<context>
    <name>RunController</name>
    <message>
        <source>Open a model first</source>
        <translation>请先打开模型</translation>
    </message>
    <message>
        <source>A run is in progress: wait for it or cancel it</source>
        <translation>正在运行：请等待其完成或取消</translation>
    </message>
    <message>
        <source>sizes made 1 for want of one: {dims}; if the model needs others, give them under Sizes of symbolic dimensions</source>
        <translation>因未给出大小而取 1 的维度：{dims}；如果模型需要其他大小，请在“符号维度的大小”中填写</translation>
    </message>
    <message>
        <source>Run cancelled; the values computed so far are kept</source>
        <translation>运行已取消；已计算的值会保留</translation>
    </message>
    <message>
        <source>Running the model…</source>
        <translation>正在运行模型…</translation>
    </message>
    <message>
        <source>Select one or more nodes of the main graph to run them</source>
        <translation>请选择主图中要运行的一个或多个节点</translation>
    </message>
    <message>
        <source>Running {n} selected node…</source>
        <translation>正在运行 {n} 个所选节点…</translation>
    </message>
    <message>
        <source>Running {n} selected nodes…</source>
        <translation>正在运行 {n} 个所选节点…</translation>
    </message>
    <message>
        <source>Ran the selection: {n} node computed</source>
        <translation>已运行所选内容：计算了 {n} 个节点</translation>
    </message>
    <message>
        <source>Ran the selection: {n} nodes computed</source>
        <translation>已运行所选内容：计算了 {n} 个节点</translation>
    </message>
    <message>
        <source>on random values of {names} (no value of the last run: run the model first for real ones)</source>
        <translation>使用了 {names} 的随机值（上次运行没有留下这些值：请先运行模型以得到真实值）</translation>
    </message>
    <message>
        <source>from the last run&apos;s values, of the inputs before your last change: run the model for values of the new ones</source>
        <translation>基于上次运行的值，即你最近一次更改之前的输入：请运行模型以获得新输入的值</translation>
    </message>
    <message>
        <source>Ran the model: {n} node computed</source>
        <translation>已运行模型：计算了 {n} 个节点</translation>
    </message>
    <message>
        <source>Ran the model: {n} nodes computed</source>
        <translation>已运行模型：计算了 {n} 个节点</translation>
    </message>
    <message>
        <source>Ran the model: {n} node computed (the other {kept} kept from the last run)</source>
        <translation>已运行模型：计算了 {n} 个节点（其余 {kept} 个沿用上次运行的结果）</translation>
    </message>
    <message>
        <source>Ran the model: {n} nodes computed (the other {kept} kept from the last run)</source>
        <translation>已运行模型：计算了 {n} 个节点（其余 {kept} 个沿用上次运行的结果）</translation>
    </message>
    <message>
        <source>the file&apos;s declared type does not hold for {outputs}</source>
        <translation>文件声明的类型与本次运行结果不符：{outputs}</translation>
    </message>
    <message>
        <source>{n} values inside bodies kept ({mib} MiB)</source>
        <translation>保留了子图内的 {n} 个值（{mib} MiB）</translation>
    </message>
    <message>
        <source>past the {mib} MiB budget, not kept: {names}</source>
        <translation>超出 {mib} MiB 预算，未保留：{names}</translation>
    </message>
    <message>
        <source>and {n} more</source>
        <translation>等另外 {n} 个</translation>
    </message>
    <message>
        <source>Stepping…</source>
        <translation>正在单步执行…</translation>
    </message>
    <message>
        <source>Running to the next breakpoint…</source>
        <translation>正在运行到下一个断点…</translation>
    </message>
    <message>
        <source>Running to {node}…</source>
        <translation>正在运行到 {node}…</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>Run complete</source>
        <translation>运行完成</translation>
    </message>
    <message>
        <source>Stopped at breakpoint {node} (iteration {i})</source>
        <translation>在断点 {node} 处停止（第 {i} 次迭代）</translation>
    </message>
    <message>
        <source>Stopped at breakpoint {node}</source>
        <translation>在断点 {node} 处停止</translation>
    </message>
    <message>
        <source>Input {names} holds NaN/Inf: stopped before the first node</source>
        <translation>输入 {names} 含有 NaN/Inf：在第一个节点之前停止</translation>
    </message>
    <message>
        <source>{node} produced NaN/Inf in {names}</source>
        <translation>{node} 在 {names} 中产生了 NaN/Inf</translation>
    </message>
    <message>
        <source>Stopped before {node} (iteration {i})</source>
        <translation>在 {node} 之前停止（第 {i} 次迭代）</translation>
    </message>
    <message>
        <source>Stopped before {node}</source>
        <translation>在 {node} 之前停止</translation>
    </message>
    <message>
        <source>end</source>
        <translation>结束</translation>
    </message>
    <message>
        <source>Entered {node}; next: {next}</source>
        <translation>已进入 {node}；下一个：{next}</translation>
    </message>
    <message>
        <source>Finished {node}; next: {next}</source>
        <translation>已完成 {node}；下一个：{next}</translation>
    </message>
    <message>
        <source>Ran {node} (iteration {i}); next: {next}</source>
        <translation>已运行 {node}（第 {i} 次迭代）；下一个：{next}</translation>
    </message>
    <message>
        <source>Ran {node}; next: {next}</source>
        <translation>已运行 {node}；下一个：{next}</translation>
    </message>
    <message>
        <source>Ready to step: {node}</source>
        <translation>准备单步执行：{node}</translation>
    </message>
    <message>
        <source>nothing to run</source>
        <translation>没有可运行的内容</translation>
    </message>
    <message>
        <source>{node} (drawn inside {box})</source>
        <translation>{node}（绘制在 {box} 框内）</translation>
    </message>
    <message>
        <source>Comparing with onnxruntime…</source>
        <translation>正在与 onnxruntime 对比…</translation>
    </message>
    <message>
        <source>Run the model first, then keep its values as the reference</source>
        <translation>请先运行模型，然后将其值保留为参考</translation>
    </message>
    <message>
        <source>Kept {n} value as the reference run</source>
        <translation>已将 {n} 个值保留为参考运行</translation>
    </message>
    <message>
        <source>Kept {n} values as the reference run</source>
        <translation>已将 {n} 个值保留为参考运行</translation>
    </message>
    <message>
        <source>computed from the inputs before your last change, not the ones shown</source>
        <translation>由你最近一次更改之前的输入计算得出，而非当前显示的输入</translation>
    </message>
    <message>
        <source>Keep a run as the reference first</source>
        <translation>请先保留一次运行作为参考</translation>
    </message>
    <message>
        <source>Comparing with the reference run…</source>
        <translation>正在与参考运行对比…</translation>
    </message>
    <message>
        <source>the reference run</source>
        <translation>参考运行</translation>
    </message>
    <message>
        <source>Compared with {who}: {ok} of {n} node agrees; no divergence</source>
        <translation>已与 {who} 对比：{n} 个节点中有 {ok} 个一致；没有分歧</translation>
    </message>
    <message>
        <source>Compared with {who}: {ok} of {n} nodes agree; no divergence</source>
        <translation>已与 {who} 对比：{n} 个节点中有 {ok} 个一致；没有分歧</translation>
    </message>
    <message>
        <source>Compared with {who}: first divergent node {node} ({note})</source>
        <translation>已与 {who} 对比：第一个分歧节点为 {node}（{note}）</translation>
    </message>
    <message>
        <source>Compared with {who}: first divergent node {node} (rel. error {rel})</source>
        <translation>已与 {who} 对比：第一个分歧节点为 {node}（相对误差 {rel}）</translation>
    </message>
    <message>
        <source>— onnxruntime&apos;s arithmetic, not the model&apos;s (the Compare dock says more)</source>
        <translation>— 是 onnxruntime 的算法所致，并非模型的问题（详见“对比”面板）</translation>
    </message>
    <message>
        <source>own errors cancelled after {i} of {n} nodes</source>
        <translation>自身误差在 {n} 个节点中的 {i} 个之后被取消</translation>
    </message>
    <message>
        <source>{name} is now {new} (was {old})</source>
        <translation>{name} 现为 {new}（原为 {old}）</translation>
    </message>
    <message>
        <source>Your edit stopped the job in progress ({what}); the values computed before it that the edit leaves as they were are kept</source>
        <translation>你的编辑停止了正在进行的任务（{what}）；此前计算出的、未受编辑影响的值予以保留</translation>
    </message>
    <message>
        <source>the comparison shown is of the model before your edit</source>
        <translation>所显示的比较针对的是你编辑之前的模型</translation>
    </message>
    <message>
        <source>Your edit ended the stepping run (the next step starts again from the first node) and the comparison: compare again to see its effect</source>
        <translation>你的编辑结束了单步运行（下一步将从第一个节点重新开始）和比较：请再次比较以查看其影响</translation>
    </message>
    <message>
        <source>Your edit ended the stepping run: the next step starts again from the first node</source>
        <translation>你的编辑结束了单步运行：下一步将从第一个节点重新开始</translation>
    </message>
    <message>
        <source>The comparison is of the model before your edit: compare again to see its effect</source>
        <translation>该比较针对的是编辑之前的模型：请再次比较以查看其影响</translation>
    </message>
    <message>
        <source>Your change of the inputs stopped the job in progress ({what}): run again on the new inputs</source>
        <translation>你对输入的更改停止了正在进行的任务（{what}）：请在新输入上重新运行</translation>
    </message>
    <message>
        <source>Your change of the inputs ended the stepping run: the next step starts again from the first node, on the new inputs</source>
        <translation>您对输入的修改结束了单步运行：下一步将使用新的输入从第一个节点重新开始</translation>
    </message>
    <message>
        <source>inputs changed shape since the last run: {changes}</source>
        <translation>输入的形状自上次运行后已改变：{changes}</translation>
    </message>
</context>
<context>
    <name>RunDock</name>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Set the inputs, then Run (Ctrl+R) or Step (F10)</source>
        <translation>设置输入，然后运行 (Ctrl+R) 或单步执行 (F10)</translation>
    </message>
    <message>
        <source>Stop at first NaN/Inf</source>
        <translation>在第一个 NaN/Inf 处停止</translation>
    </message>
    <message>
        <source>Save inputs…</source>
        <translation>保存输入…</translation>
    </message>
    <message>
        <source>Every input, as the next run makes it, in one .npz file (arrays by input name)</source>
        <translation>将下次运行生成的所有输入保存到一个 .npz 文件（数组按输入名命名）</translation>
    </message>
    <message>
        <source>Save values…</source>
        <translation>保存值…</translation>
    </message>
    <message>
        <source>The values of the last run (the selected nodes&apos; or all) in one .npz file, by value name</source>
        <translation>将上次运行的值（所选节点的或全部）保存到一个 .npz 文件，按值名命名</translation>
    </message>
    <message>
        <source>Selected nodes&apos; values…</source>
        <translation>所选节点的值…</translation>
    </message>
    <message>
        <source>All values…</source>
        <translation>全部值…</translation>
    </message>
    <message>
        <source>Keep values inside bodies</source>
        <translation>保留子图内的值</translation>
    </message>
    <message>
        <source>A whole run (Ctrl+R) keeps the values computed inside If, Loop and Scan bodies, up to the memory budget; a loop&apos;s last iteration</source>
        <translation>完整运行（Ctrl+R）时保留 If、Loop、Scan 子图内计算出的值，不超过内存预算；循环保留最后一次迭代</translation>
    </message>
    <message>
        <source> MiB</source>
        <translation> MiB</translation>
    </message>
    <message>
        <source>Memory budget for the values kept inside bodies; values past it are not kept, and the run says which</source>
        <translation>子图内保留值的内存预算；超出的值不保留，运行结果会列出这些值</translation>
    </message>
    <message>
        <source>every iteration</source>
        <translation>每次迭代</translation>
    </message>
    <message>
        <source>Keep the values of every loop iteration, not only the last</source>
        <translation>保留循环每次迭代的值，而不只是最后一次</translation>
    </message>
    <message>
        <source>node %v of %m</source>
        <translation>第 %v 个节点，共 %m 个</translation>
    </message>
</context>
<context>
    <name>RunOverlay</name>
    <message>
        <source>random values fed to the selection run (the last run left no value here): not what its producer computes</source>
        <translation>为所选节点的运行提供的随机值（上次运行在此处没有留下值）：并非其生产节点计算的结果</translation>
    </message>
    <message>
        <source>computed again by the last run (amber tags; the others were kept from the run before)</source>
        <translation>由上一次运行重新计算（琥珀色标签；其余沿用之前的运行）</translation>
    </message>
    <message>
        <source>kept from the run before (the last run computed only the amber tags again)</source>
        <translation>沿用之前的运行（上一次运行只重新计算了琥珀色标签）</translation>
    </message>
    <message>
        <source>computed from the inputs before your last change: run again to see their value</source>
        <translation>由上次修改之前的输入计算得出：请重新运行以查看新值</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>from iteration {i} of the {n} runs of this body</source>
        <translation>来自此子图 {n} 次运行中的第 {i} 次迭代</translation>
    </message>
    <message>
        <source>from the last of {n} runs of this body (iteration {i})</source>
        <translation>来自该子图 {n} 次运行中的最后一次（第 {i} 次迭代）</translation>
    </message>
    <message>
        <source>run value {text}: no room for its tag beside this edge (select the edge to inspect it)</source>
        <translation>运行值 {text}：此边旁没有放置其标签的空间（选中此边即可查看）</translation>
    </message>
    <message>
        <source>max abs error {abs}, rel {rel}</source>
        <translation>最大绝对误差 {abs}，相对误差 {rel}</translation>
    </message>
    <message>
        <source>  (differs)</source>
        <translation>  （不一致）</translation>
    </message>
    <message>
        <source>own error (run alone on the reference&apos;s inputs): max abs {abs}, rel {rel}</source>
        <translation>自身误差（单独以参考的输入运行）：最大绝对误差 {abs}，相对误差 {rel}</translation>
    </message>
</context>
<context>
    <name>RunUI</name>
    <message>
        <source>&amp;Run Model</source>
        <translation>运行模型(&amp;R)</translation>
    </message>
    <message>
        <source>Run &amp;Selection</source>
        <translation>运行所选节点(&amp;S)</translation>
    </message>
    <message>
        <source>Run the selected nodes</source>
        <translation>运行所选节点</translation>
    </message>
    <message>
        <source>&amp;Continue</source>
        <translation>继续(&amp;C)</translation>
    </message>
    <message>
        <source>Continue to the next breakpoint</source>
        <translation>继续运行到下一个断点</translation>
    </message>
    <message>
        <source>Run &amp;to Selected Node</source>
        <translation>运行到所选节点(&amp;T)</translation>
    </message>
    <message>
        <source>Toggle &amp;Breakpoint</source>
        <translation>切换断点(&amp;B)</translation>
    </message>
    <message>
        <source>Toggle a breakpoint on the selected node</source>
        <translation>在所选节点上切换断点</translation>
    </message>
    <message>
        <source>Res&amp;tart</source>
        <translation>重新开始(&amp;T)</translation>
    </message>
    <message>
        <source>Start stepping again from the first node</source>
        <translation>从第一个节点重新开始单步执行</translation>
    </message>
    <message>
        <source>Ca&amp;ncel Run</source>
        <translation>取消运行(&amp;N)</translation>
    </message>
    <message>
        <source>Stop at First &amp;NaN/Inf</source>
        <translation>在第一个 NaN/Inf 处停止(&amp;N)</translation>
    </message>
    <message>
        <source>Keep Values Inside &amp;Bodies</source>
        <translation>保留子图内的值(&amp;B)</translation>
    </message>
    <message>
        <source>Keep Every Loop &amp;Iteration</source>
        <translation>保留循环的每次迭代(&amp;I)</translation>
    </message>
    <message>
        <source>Compare with &amp;onnxruntime</source>
        <translation>与 onnxruntime 对比(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Keep Run as Reference</source>
        <translation>保留本次运行作为参考(&amp;K)</translation>
    </message>
    <message>
        <source>Compare with R&amp;eference Run</source>
        <translation>与参考运行对比(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Load Inputs…</source>
        <translation>加载输入(&amp;L)…</translation>
    </message>
    <message>
        <source>Every input from one .npz file named like the inputs</source>
        <translation>从一个按输入名命名的 .npz 文件加载所有输入</translation>
    </message>
    <message>
        <source>Save &amp;Inputs…</source>
        <translation>保存输入(&amp;I)…</translation>
    </message>
    <message>
        <source>Save Selected &amp;Values…</source>
        <translation>保存所选值(&amp;V)…</translation>
    </message>
    <message>
        <source>Save &amp;All Values…</source>
        <translation>保存全部值(&amp;A)…</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Step &amp;Into</source>
        <translation>单步进入(&amp;I)</translation>
    </message>
    <message>
        <source>Step into: enter the body of an If/Loop/Scan or a function call</source>
        <translation>单步进入：进入 If/Loop/Scan 或函数调用的子图</translation>
    </message>
    <message>
        <source>Step O&amp;ut</source>
        <translation>单步跳出(&amp;U)</translation>
    </message>
    <message>
        <source>Step out: finish the body and stop after the node holding it</source>
        <translation>单步跳出：运行完子图，停在包含它的节点之后</translation>
    </message>
    <message>
        <source>Step on &amp;Constants</source>
        <translation>在常量上单步(&amp;C)</translation>
    </message>
    <message>
        <source>Stop on Constant nodes (and nodes computed from constants only) when stepping</source>
        <translation>单步时在 Constant 节点（以及仅由常量计算的节点）上停下</translation>
    </message>
    <message>
        <source>Step on S&amp;hape Arithmetic</source>
        <translation>在形状运算上单步(&amp;H)</translation>
    </message>
    <message>
        <source>Stop on Shape, Size and the arithmetic on their results when stepping</source>
        <translation>单步时在 Shape、Size 及对其结果的运算上停下</translation>
    </message>
    <message>
        <source>Run to {node}</source>
        <translation>运行到 {node}</translation>
    </message>
    <message>
        <source>Remove breakpoint</source>
        <translation>删除断点</translation>
    </message>
    <message>
        <source>Set breakpoint</source>
        <translation>设置断点</translation>
    </message>
    <message>
        <source>Inspect {name}</source>
        <translation>查看 {name}</translation>
    </message>
    <message>
        <source>Inspect initializer {name}</source>
        <translation>查看初始化器 {name}</translation>
    </message>
    <message>
        <source>cannot read the saved model to compare with: {error}</source>
        <translation>无法读取用于对比的已保存模型：{error}</translation>
    </message>
    <message>
        <source>NumPy arrays (*.npz)</source>
        <translation>NumPy 数组 (*.npz)</translation>
    </message>
    <message>
        <source>Open a model first</source>
        <translation>请先打开模型</translation>
    </message>
    <message>
        <source>Save inputs</source>
        <translation>保存输入</translation>
    </message>
    <message>
        <source>Saved {n} input to {path}</source>
        <translation>已将 {n} 个输入保存到 {path}</translation>
    </message>
    <message>
        <source>Saved {n} inputs to {path}</source>
        <translation>已将 {n} 个输入保存到 {path}</translation>
    </message>
    <message>
        <source>Run the model first, then save its values</source>
        <translation>请先运行模型，再保存其值</translation>
    </message>
    <message>
        <source>Select nodes of the main graph whose values the run computed, or save all values</source>
        <translation>请选择主图中运行已计算出值的节点，或保存全部值</translation>
    </message>
    <message>
        <source>Save values</source>
        <translation>保存值</translation>
    </message>
    <message>
        <source>random values fed to the selection run, not computed: {names}</source>
        <translation>为所选节点的运行提供的随机值，并非计算所得：{names}</translation>
    </message>
    <message>
        <source>Saved {n} value to {path}</source>
        <translation>已将 {n} 个值保存到 {path}</translation>
    </message>
    <message>
        <source>Saved {n} values to {path}</source>
        <translation>已将 {n} 个值保存到 {path}</translation>
    </message>
    <message>
        <source>{path}: cannot write ({error})</source>
        <translation>{path}：无法写入（{error}）</translation>
    </message>
    <message>
        <source>an .npz cannot hold {names}: left out</source>
        <translation>.npz 无法保存 {names}：已略去</translation>
    </message>
    <message numerus="yes">
        <source>Value tags not shown for lack of room beside their edges: %n (hover an edge for its value, or select it to inspect it)</source>
        <translation>
            <numerusform>因边旁没有空间而未显示的数值标签：%n 个（将鼠标悬停在边上可查看其值，选中边可检查它）</numerusform>
        </translation>
    </message>
    <message>
        <source>group {path}</source>
        <translation>分组 {path}</translation>
    </message>
    <message>
        <source>In numpy&apos;s words: {detail}</source>
        <translation>numpy 的原话：{detail}</translation>
    </message>
    <message>
        <source>{where}, iteration {i}</source>
        <translation>{where}，第 {i} 次迭代</translation>
    </message>
    <message>
        <source>{name}: cannot read the initializer ({error})</source>
        <translation>{name}：无法读取初始化器（{error}）</translation>
    </message>
    <message>
        <source>initializer</source>
        <translation>初始化器</translation>
    </message>
    <message>
        <source>Step &amp;Over</source>
        <translation>单步跳过(&amp;O)</translation>
    </message>
    <message>
        <source>Step over: run the next node; an If/Loop/Scan or a function call runs whole</source>
        <translation>单步跳过：运行下一个节点；If/Loop/Scan 或函数调用整体运行</translation>
    </message>
    <message>
        <source>output of {node}</source>
        <translation>{node} 的输出</translation>
    </message>
    <message>
        <source>no value in this run: run the model, or step to it, to see it</source>
        <translation>本次运行中没有此值：运行模型或单步执行到此处即可查看</translation>
    </message>
</context>
<context>
    <name>ScriptApplier</name>
    <message>
        <source>Apply edit script {name}</source>
        <translation>应用编辑脚本 {name}</translation>
    </message>
    <message>
        <source>{path}: cannot read it ({reason}). Nothing was changed.</source>
        <translation>{path}：无法读取（{reason}）。未做任何更改。</translation>
    </message>
    <message>
        <source>{path}: {problem}. Nothing was changed.</source>
        <translation>{path}：{problem}。未做任何更改。</translation>
    </message>
    <message>
        <source>The steps before it applied and were undone:</source>
        <translation>它之前的步骤已应用并已撤销：</translation>
    </message>
    <message>
        <source>{path}: the model already holds what every step sets; nothing changed and no undo step was added.</source>
        <translation>{path}：模型已具有每个步骤所设置的内容；没有任何更改，也未添加撤销步骤。</translation>
    </message>
    <message>
        <source>{path}: {n} edit replayed as one undo step.</source>
        <translation>{path}：已重放 {n} 个编辑，作为一个撤销步骤。</translation>
    </message>
    <message>
        <source>{path}: {n} edits replayed as one undo step.</source>
        <translation>{path}：已重放 {n} 个编辑，作为一个撤销步骤。</translation>
    </message>
    <message>
        <source>{n} step(s) were already so.</source>
        <translation>{n} 个步骤已是如此。</translation>
    </message>
    <message>
        <source>Apply edit script</source>
        <translation>应用编辑脚本</translation>
    </message>
    <message>
        <source>Edit script (*.json)</source>
        <translation>编辑脚本 (*.json)</translation>
    </message>
</context>
<context>
    <name>Search</name>
    <message>
        <source>node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>initializer</source>
        <translation>初始化器</translation>
    </message>
    <message>
        <source>function {name}</source>
        <translation>函数 {name}</translation>
    </message>
    <message>
        <source>main graph</source>
        <translation>主图</translation>
    </message>
    <message>
        <source>body</source>
        <translation>子图</translation>
    </message>
</context>
<context>
    <name>SearchPanel</name>
    <message>
        <source>Search nodes, ops, values, initializers…</source>
        <translation>搜索节点、算子、值、初始化器…</translation>
    </message>
    <message>
        <source>{text}
{kind} in {where}</source>
        <translation>{text}
{where}中的{kind}</translation>
    </message>
    <message>
        <source>{n}+ matches</source>
        <translation>{n}+ 个匹配</translation>
    </message>
    <message>
        <source>{n} match</source>
        <translation>{n} 个匹配</translation>
    </message>
    <message>
        <source>{n} matches</source>
        <translation>{n} 个匹配</translation>
    </message>
</context>
<context>
    <name>SideBySide</name>
    <message>
        <source>Click a difference to see A and B side by side</source>
        <translation>点击一处差异，并排查看 A 与 B</translation>
    </message>
    <message>
        <source>A</source>
        <translation>A</translation>
    </message>
    <message>
        <source>B</source>
        <translation>B</translation>
    </message>
    <message>
        <source>name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>op</source>
        <translation>算子</translation>
    </message>
    <message>
        <source>domain</source>
        <translation>域</translation>
    </message>
    <message>
        <source>(default)</source>
        <translation>（默认值）</translation>
    </message>
    <message>
        <source>inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>outputs</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>{abs} (relative {rel})</source>
        <translation>{abs}（相对 {rel}）</translation>
    </message>
    <message>
        <source>largest difference</source>
        <translation>最大差异</translation>
    </message>
    <message>
        <source>elements changed</source>
        <translation>已更改的元素</translation>
    </message>
    <message>
        <source>type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>read</source>
        <translation>已读取</translation>
    </message>
    <message>
        <source>not compared: {reason}</source>
        <translation>未比较：{reason}</translation>
    </message>
    <message>
        <source>values</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>{text}, values not compared: {reason}</source>
        <translation>{text}，数值未比较：{reason}</translation>
    </message>
</context>
<context>
    <name>StepNames</name>
    <message>
        <source>Set model {field}</source>
        <translation>设置模型 {field}</translation>
    </message>
    <message>
        <source>Remove opset {domain}</source>
        <translation>删除算子集 {domain}</translation>
    </message>
    <message>
        <source>Set opset {domain} to {version}</source>
        <translation>将算子集 {domain} 设为 {version}</translation>
    </message>
    <message>
        <source>Remove metadata {key}</source>
        <translation>删除元数据 {key}</translation>
    </message>
    <message>
        <source>Set metadata {key}</source>
        <translation>设置元数据 {key}</translation>
    </message>
    <message>
        <source>Set graph {field}</source>
        <translation>设置图 {field}</translation>
    </message>
    <message>
        <source>Set attribute {name}</source>
        <translation>设置属性 {name}</translation>
    </message>
    <message>
        <source>Remove attribute {name}</source>
        <translation>删除属性 {name}</translation>
    </message>
    <message>
        <source>Add initializer {name}</source>
        <translation>添加初始化器 {name}</translation>
    </message>
    <message>
        <source>Remove initializer {name}</source>
        <translation>删除初始化器 {name}</translation>
    </message>
    <message>
        <source>Set initializer {name}</source>
        <translation>设置初始化器 {name}</translation>
    </message>
    <message>
        <source>Set type of {value}</source>
        <translation>设置 {value} 的类型</translation>
    </message>
    <message>
        <source>Set shape of {value}</source>
        <translation>设置 {value} 的形状</translation>
    </message>
    <message>
        <source>Remove value_info of {value}</source>
        <translation>删除 {value} 的 value_info</translation>
    </message>
    <message>
        <source>Declare {value}</source>
        <translation>声明 {value}</translation>
    </message>
    <message>
        <source>Add input {name}</source>
        <translation>添加输入 {name}</translation>
    </message>
    <message>
        <source>Remove repeated input {name}</source>
        <translation>删除重复声明的输入 {name}</translation>
    </message>
    <message>
        <source>Remove input {name}</source>
        <translation>删除输入 {name}</translation>
    </message>
    <message>
        <source>Move input {name}</source>
        <translation>移动输入 {name}</translation>
    </message>
    <message>
        <source>Add output {name}</source>
        <translation>添加输出 {name}</translation>
    </message>
    <message>
        <source>Remove repeated output {name}</source>
        <translation>删除重复的输出 {name}</translation>
    </message>
    <message>
        <source>Remove output {name}</source>
        <translation>删除输出 {name}</translation>
    </message>
    <message>
        <source>Move output {name}</source>
        <translation>移动输出 {name}</translation>
    </message>
    <message>
        <source>Move value_info {name}</source>
        <translation>移动 value_info {name}</translation>
    </message>
    <message>
        <source>Connect input {index} of {node} to {value}</source>
        <translation>将 {node} 的输入 {index} 连接到 {value}</translation>
    </message>
    <message>
        <source>Clear input {index} of {node}</source>
        <translation>清空 {node} 的输入 {index}</translation>
    </message>
    <message>
        <source>Set node inputs</source>
        <translation>设置节点输入</translation>
    </message>
    <message>
        <source>Set node outputs</source>
        <translation>设置节点输出</translation>
    </message>
    <message>
        <source>Remove node {node}</source>
        <translation>删除节点 {node}</translation>
    </message>
    <message>
        <source>Set {field} of node {node}</source>
        <translation>设置节点 {node} 的 {field}</translation>
    </message>
    <message>
        <source>Insert {op} after {value}</source>
        <translation>在 {value} 之后插入 {op}</translation>
    </message>
    <message>
        <source>Delete {node} and reconnect</source>
        <translation>删除 {node} 并重新连接</translation>
    </message>
    <message>
        <source>Replace {n} nodes by {op}</source>
        <translation>用 {op} 替换 {n} 个节点</translation>
    </message>
    <message>
        <source>Replace {n} node by {op}</source>
        <translation>用 {op} 替换 {n} 个节点</translation>
    </message>
    <message>
        <source>Make {name} an input</source>
        <translation>将 {name} 设为输入</translation>
    </message>
    <message>
        <source>Make {name} a constant</source>
        <translation>将 {name} 设为常量</translation>
    </message>
    <message>
        <source>Rename {old} to {new}</source>
        <translation>将 {old} 重命名为 {new}</translation>
    </message>
    <message>
        <source>Sort nodes</source>
        <translation>排序节点</translation>
    </message>
    <message>
        <source>Clean up</source>
        <translation>清理</translation>
    </message>
    <message>
        <source>{n} edits</source>
        <translation>{n} 项编辑</translation>
    </message>
    <message>
        <source>Add {op} &quot;{name}&quot;</source>
        <translation>添加 {op}“{name}”</translation>
    </message>
    <message>
        <source>Add {op}</source>
        <translation>添加 {op}</translation>
    </message>
    <message>
        <source>Reorder nodes</source>
        <translation>重新排列节点</translation>
    </message>
    <message>
        <source>Restore opset</source>
        <translation>恢复算子集</translation>
    </message>
    <message>
        <source>Add value_info</source>
        <translation>添加 value_info</translation>
    </message>
    <message>
        <source>Remove declaration</source>
        <translation>删除声明</translation>
    </message>
</context>
<context>
    <name>TensorEditor</name>
    <message>
        <source>Load values</source>
        <translation>加载数值</translation>
    </message>
    <message>
        <source>Import .npy…</source>
        <translation>导入 .npy…</translation>
    </message>
    <message>
        <source>Export .npy…</source>
        <translation>导出 .npy…</translation>
    </message>
    <message>
        <source>Preview</source>
        <translation>预览</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>new dims, e.g. 4, 27</source>
        <translation>新维度，例如 4, 27</translation>
    </message>
    <message>
        <source>Reshape</source>
        <translation>改变形状</translation>
    </message>
    <message>
        <source>Make a private copy for this node</source>
        <translation>为此节点创建私有副本</translation>
    </message>
    <message>
        <source>dtype</source>
        <translation>数据类型</translation>
    </message>
    <message>
        <source>shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <source>initializer</source>
        <translation>初始化器</translation>
    </message>
    <message>
        <source>attribute</source>
        <translation>属性</translation>
    </message>
    <message>
        <source>Stored sparse: {stored} of {total} elements ({size} of values and indices); the others are 0.</source>
        <translation>以稀疏形式存储：{total} 个元素中存储了 {stored} 个（值和索引共 {size}）；其余为 0。</translation>
    </message>
    <message>
        <source>No node reads it.</source>
        <translation>没有节点读取它。</translation>
    </message>
    <message>
        <source>Read by 1 node: {node}.</source>
        <translation>被 1 个节点读取：{node}。</translation>
    </message>
    <message>
        <source>Shared: read by {n} nodes ({ops}); an edit here changes all of them.</source>
        <translation>共享：被 {n} 个节点读取（{ops}）；在此编辑会改变所有这些节点。</translation>
    </message>
    <message>
        <source>Through {n} Identity node.</source>
        <translation>经过 {n} 个 Identity 节点。</translation>
    </message>
    <message>
        <source>Through {n} Identity nodes.</source>
        <translation>经过 {n} 个 Identity 节点。</translation>
    </message>
    <message>
        <source>Private copy of {name} for {node}</source>
        <translation>为 {node} 创建 {name} 的私有副本</translation>
    </message>
    <message>
        <source>Values not read yet ({size}).</source>
        <translation>尚未读取数值（{size}）。</translation>
    </message>
    <message>
        <source>cannot read the values: {error}</source>
        <translation>无法读取数值：{error}</translation>
    </message>
    <message>
        <source>{name}: {message} — not changed.</source>
        <translation>{name}：{message} —— 未更改。</translation>
    </message>
    <message>
        <source>Set {name}[{where}]</source>
        <translation>设置 {name}[{where}]</translation>
    </message>
    <message>
        <source>Import tensor</source>
        <translation>导入张量</translation>
    </message>
    <message>
        <source>NumPy array (*.npy)</source>
        <translation>NumPy 数组 (*.npy)</translation>
    </message>
    <message>
        <source>{path} cannot be read as .npy: {error}</source>
        <translation>无法将 {path} 读取为 .npy：{error}</translation>
    </message>
    <message>
        <source>{path} holds several arrays, not one</source>
        <translation>{path} 包含多个数组，而不是一个</translation>
    </message>
    <message>
        <source>{path} has shape {got}, the tensor has {want}</source>
        <translation>{path} 的形状为 {got}，张量的形状为 {want}</translation>
    </message>
    <message>
        <source>{path} holds {got}, the tensor is {want} (change the dtype first)</source>
        <translation>{path} 中是 {got}，张量是 {want}（请先更改数据类型）</translation>
    </message>
    <message>
        <source>Import {file} into {name}</source>
        <translation>将 {file} 导入到 {name}</translation>
    </message>
    <message>
        <source>{path} holds {got}, the tensor is {want}: converting it, max abs change {a:.6g}, max rel change {r:.3g}, {n} of {total} values change</source>
        <translation>{path} 存的是 {got}，张量是 {want}：转换后最大绝对变化 {a:.6g}，最大相对变化 {r:.3g}，{total} 个值中有 {n} 个改变</translation>
    </message>
    <message>
        <source>Import as {dtype}</source>
        <translation>以 {dtype} 导入</translation>
    </message>
    <message>
        <source>Export tensor</source>
        <translation>导出张量</translation>
    </message>
    <message>
        <source>could not write {path}: {error}</source>
        <translation>无法写入 {path}：{error}</translation>
    </message>
    <message>
        <source>cannot convert to {dtype}: {error}</source>
        <translation>无法转换为 {dtype}：{error}</translation>
    </message>
    <message>
        <source>{n} values change</source>
        <translation>{n} 个值发生变化</translation>
    </message>
    <message>
        <source>{n} value changes</source>
        <translation>{n} 个值发生变化</translation>
    </message>
    <message>
        <source>to {dtype}: max abs change {a:.6g}, max rel change {r:.3g}, {n} value changes</source>
        <translation>转换为 {dtype}：最大绝对变化 {a:.6g}，最大相对变化 {r:.3g}，{n} 个值发生变化</translation>
    </message>
    <message>
        <source>to {dtype}: max abs change {a:.6g}, max rel change {r:.3g}, {n} values change</source>
        <translation>转换为 {dtype}：最大绝对变化 {a:.6g}，最大相对变化 {r:.3g}，{n} 个值发生变化</translation>
    </message>
    <message>
        <source>, {n} overflow</source>
        <translation>，{n} 个溢出</translation>
    </message>
    <message>
        <source>Warning: {n} nodes read this tensor; converting it changes the input of every one of them (make a private copy to change one).</source>
        <translation>警告：有 {n} 个节点读取此张量；转换它会改变每个节点的输入（若只改一个，请先创建私有副本）。</translation>
    </message>
    <message>
        <source>the tensor is already {dtype}</source>
        <translation>张量已经是 {dtype}</translation>
    </message>
    <message>
        <source>Convert {name} to {dtype}</source>
        <translation>将 {name} 转换为 {dtype}</translation>
    </message>
    <message>
        <source>a new shape needs sizes, not names or ?</source>
        <translation>新形状需要具体大小，不能是名称或 ?</translation>
    </message>
    <message>
        <source>{new} has {n} element, the tensor {m}</source>
        <translation>{new} 有 {n} 个元素，张量有 {m} 个</translation>
    </message>
    <message>
        <source>{new} has {n} elements, the tensor {m}</source>
        <translation>{new} 有 {n} 个元素，张量有 {m} 个</translation>
    </message>
    <message>
        <source>Reshape {name} to {dims}</source>
        <translation>将 {name} 的形状改为 {dims}</translation>
    </message>
</context>
<context>
    <name>TensorInspector</name>
    <message>
        <source>Select an edge after a run (or an initializer) to inspect its value</source>
        <translation>运行后选择一条边（或一个初始化器）以查看其值</translation>
    </message>
    <message>
        <source>Export .npy…</source>
        <translation>导出 .npy…</translation>
    </message>
    <message>
        <source>|ours − reference| per element:</source>
        <translation>逐元素 |本次 − 参考|：</translation>
    </message>
    <message>
        <source>Histogram</source>
        <translation>直方图</translation>
    </message>
    <message>
        <source>Values</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>Image</source>
        <translation>图像</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>&lt;b&gt;{name}&lt;/b&gt;: map of {n} ({key} → {value}){where}</source>
        <translation>&lt;b&gt;{name}&lt;/b&gt;：{n} 项的映射（{key} → {value}）{where}</translation>
    </message>
    <message>
        <source>an empty optional: no value</source>
        <translation>空的 optional：没有值</translation>
    </message>
    <message>
        <source>empty: no element to show</source>
        <translation>为空：没有可显示的元素</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>element </source>
        <translation>元素 </translation>
    </message>
    <message>
        <source> of {n}</source>
        <translation> / 共 {n}</translation>
    </message>
    <message>
        <source>Nothing to compare with: keep a reference run or compare with onnxruntime</source>
        <translation>没有可对比的对象：请保留一次参考运行，或与 onnxruntime 对比</translation>
    </message>
    <message>
        <source>the reference run</source>
        <translation>参考运行</translation>
    </message>
    <message>
        <source>agrees</source>
        <translation>一致</translation>
    </message>
    <message>
        <source>differs</source>
        <translation>不一致</translation>
    </message>
    <message>
        <source>against &lt;b&gt;{who}&lt;/b&gt;: {verdict}</source>
        <translation>与 &lt;b&gt;{who}&lt;/b&gt; 对比：{verdict}</translation>
    </message>
    <message>
        <source>max abs error {abs}, relative to the largest |value| ({scale}): {rel}</source>
        <translation>最大绝对误差 {abs}，相对于最大 |值|（{scale}）：{rel}</translation>
    </message>
    <message>
        <source>largest difference at {where}: ours {ours}, {other} {theirs}</source>
        <translation>最大差异位于 {where}：本次 {ours}，{other} {theirs}</translation>
    </message>
    <message>
        <source>Export tensor</source>
        <translation>导出张量</translation>
    </message>
    <message>
        <source>NumPy array (*.npy)</source>
        <translation>NumPy 数组 (*.npy)</translation>
    </message>
    <message>
        <source>Could not write {path}: {error}</source>
        <translation>无法写入 {path}：{error}</translation>
    </message>
    <message>
        <source>Exported to {path}</source>
        <translation>已导出到 {path}</translation>
    </message>
</context>
<context>
    <name>TensorTable</name>
    <message>
        <source>axis {axis} ({size})</source>
        <translation>轴 {axis}（{size}）</translation>
    </message>
    <message>
        <source>rows</source>
        <translation>行</translation>
    </message>
    <message>
        <source>columns</source>
        <translation>列</translation>
    </message>
    <message>
        <source>axis {axis} = </source>
        <translation>轴 {axis} = </translation>
    </message>
</context>
<context>
    <name>TensorTableModel</name>
    <message>
        <source>rows and columns need two different axes</source>
        <translation>行和列需要两个不同的轴</translation>
    </message>
    <message>
        <source>value</source>
        <translation>值</translation>
    </message>
</context>
<context>
    <name>TensorView</name>
    <message>
        <source>{text} is not a boolean (true/false)</source>
        <translation>{text} 不是布尔值（true/false）</translation>
    </message>
    <message>
        <source>{value} does not fit {dtype} ({low}..{high})</source>
        <translation>{value} 超出 {dtype} 的范围（{low}..{high}）</translation>
    </message>
    <message>
        <source>{text} is not a {dtype}: {error}</source>
        <translation>{text} 不是 {dtype}：{error}</translation>
    </message>
    <message>
        <source>{text} is not a {dtype}</source>
        <translation>{text} 不是 {dtype}</translation>
    </message>
    <message>
        <source>only numeric tensors can be shown as images</source>
        <translation>只有数值张量才能显示为图像</translation>
    </message>
    <message>
        <source>a {layout} image has {n} axes; this tensor has {m}</source>
        <translation>{layout} 图像有 {n} 个轴；此张量有 {m} 个</translation>
    </message>
    <message>
        <source>{n} element (not a number)</source>
        <translation>{n} 个元素（非数值）</translation>
    </message>
    <message>
        <source>{n} elements (not numbers)</source>
        <translation>{n} 个元素（非数值）</translation>
    </message>
    <message>
        <source>empty</source>
        <translation>空</translation>
    </message>
    <message>
        <source>min</source>
        <translation>最小值</translation>
    </message>
    <message>
        <source>max</source>
        <translation>最大值</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>平均值</translation>
    </message>
    <message>
        <source>std</source>
        <translation>标准差</translation>
    </message>
    <message>
        <source>no NaN/Inf</source>
        <translation>无 NaN/Inf</translation>
    </message>
    <message>
        <source>({n} element)</source>
        <translation>（{n} 个元素）</translation>
    </message>
    <message>
        <source>({n} elements)</source>
        <translation>（{n} 个元素）</translation>
    </message>
</context>
<context>
    <name>TextAttrEditor</name>
    <message>
        <source>whole numbers, comma separated</source>
        <translation>整数，以逗号分隔</translation>
    </message>
    <message>
        <source>numbers, comma separated</source>
        <translation>数字，以逗号分隔</translation>
    </message>
    <message>
        <source>texts, comma separated (or a Python list of quoted texts)</source>
        <translation>文本，以逗号分隔（或带引号文本的 Python 列表）</translation>
    </message>
</context>
<context>
    <name>ValueEditor</name>
    <message>
        <source>&lt;b&gt;Value&lt;/b&gt;</source>
        <translation>&lt;b&gt;值&lt;/b&gt;</translation>
    </message>
    <message>
        <source>name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>element type</source>
        <translation>元素类型</translation>
    </message>
    <message>
        <source>scalar</source>
        <translation>标量</translation>
    </message>
    <message>
        <source>Sizes, symbolic names or ? (unknown), comma separated</source>
        <translation>大小、符号名或 ?（未知），以逗号分隔</translation>
    </message>
    <message>
        <source>rank unknown</source>
        <translation>秩未知</translation>
    </message>
    <message>
        <source>dims</source>
        <translation>维度</translation>
    </message>
    <message>
        <source>Declare type (value_info)</source>
        <translation>声明类型 (value_info)</translation>
    </message>
    <message>
        <source>type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>dim {i} is empty; write ? for an unknown size</source>
        <translation>第 {i} 维为空；未知大小请写 ?</translation>
    </message>
    <message>
        <source>dim {i} is {part}: a size cannot be negative (use ? or a name)</source>
        <translation>第 {i} 维为 {part}：大小不能为负（请用 ? 或名称）</translation>
    </message>
    <message>
        <source>dim {i} is {part}: a size is a whole number</source>
        <translation>第 {i} 维为 {part}：大小必须是整数</translation>
    </message>
    <message>
        <source>dim {i} is {part}: a size must fit in int64 (at most 9223372036854775807)</source>
        <translation>第 {i} 维为 {part}：大小必须在 int64 范围内（最大 9223372036854775807）</translation>
    </message>
    <message>
        <source>dim {i}: {part} is neither a size, a name nor ? (a name starts with a letter or _ and has only letters, digits, _ . or :, no quotes or spaces)</source>
        <translation>第 {i} 维：{part} 既不是大小、名称，也不是 ?（名称以字母或 _ 开头，只含字母、数字、_ . 或 :，不带引号或空格）</translation>
    </message>
    <message>
        <source>{type} (not a tensor: shown, not edited here)</source>
        <translation>{type}（不是张量：仅显示，不能在此编辑）</translation>
    </message>
    <message>
        <source>&lt;b&gt;Graph&lt;/b&gt;</source>
        <translation>&lt;b&gt;图&lt;/b&gt;</translation>
    </message>
    <message>
        <source>graph input</source>
        <translation>图输入</translation>
    </message>
    <message>
        <source>graph output</source>
        <translation>图输出</translation>
    </message>
    <message>
        <source>Make graph output</source>
        <translation>设为图输出</translation>
    </message>
    <message>
        <source>Remove value_info entry</source>
        <translation>删除 value_info 条目</translation>
    </message>
    <message>
        <source>{i} of {n}</source>
        <translation>第 {i} 个，共 {n} 个</translation>
    </message>
    <message>
        <source>Move up</source>
        <translation>上移</translation>
    </message>
    <message>
        <source>Move down</source>
        <translation>下移</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Input {i} declares {name} again: remove that declaration first</source>
        <translation>输入 {i} 再次声明了 {name}：请先删除那个声明</translation>
    </message>
    <message>
        <source>input {i}: {type}</source>
        <translation>输入 {i}：{type}</translation>
    </message>
    <message>
        <source>Remove this declaration</source>
        <translation>删除此声明</translation>
    </message>
    <message>
        <source>declared again</source>
        <translation>重复声明</translation>
    </message>
    <message>
        <source>output {i}: {type}</source>
        <translation>输出 {i}：{type}</translation>
    </message>
    <message>
        <source>listed again</source>
        <translation>重复列出</translation>
    </message>
    <message>
        <source>{name} is declared more than once: nodes read input {first}, and this repeat is an error. Remove it; {name} stays a graph input.</source>
        <translation>{name} 被声明了不止一次：节点读取的是输入 {first}，此重复声明是错误。删除它后 {name} 仍是图输入。</translation>
    </message>
    <message>
        <source>This declaration of {name} is not the value the graph&apos;s nodes and edits name. Remove it to keep the file consistent.</source>
        <translation>{name} 的这个声明不是图中节点和编辑所指的值。删除它可使文件保持一致。</translation>
    </message>
    <message>
        <source>{name}: {message} — not changed.</source>
        <translation>{name}：{message} —— 未更改。</translation>
    </message>
    <message>
        <source>a value needs a name</source>
        <translation>值需要一个名称</translation>
    </message>
    <message>
        <source>the name {new} is already used</source>
        <translation>名称 {new} 已被使用</translation>
    </message>
    <message>
        <source>Input {name} has rank {old}, and the nodes that read it expect that rank. Give it rank {new}?</source>
        <translation>输入 {name} 的秩为 {old}，读取它的节点都按这个秩工作。要把它的秩改为 {new} 吗？</translation>
    </message>
    <message>
        <source>Change rank</source>
        <translation>更改秩</translation>
    </message>
    <message>
        <source>rank {old} kept: the nodes that read it expect it</source>
        <translation>秩保持为 {old}：读取它的节点需要这个秩</translation>
    </message>
</context>
<context>
    <name>_SpecEditor</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>lowest</source>
        <translation>最小</translation>
    </message>
    <message>
        <source>highest</source>
        <translation>最大</translation>
    </message>
    <message>
        <source>normal</source>
        <translation>正态</translation>
    </message>
    <message>
        <source>uniform</source>
        <translation>均匀</translation>
    </message>
    <message>
        <source>distribution</source>
        <translation>分布</translation>
    </message>
    <message>
        <source>from</source>
        <translation>从</translation>
    </message>
    <message>
        <source>to</source>
        <translation>到</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>平均值</translation>
    </message>
    <message>
        <source>std</source>
        <translation>标准差</translation>
    </message>
    <message>
        <source>value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>a .npy, .npz or .pb file</source>
        <translation>.npy、.npz 或 .pb 文件</translation>
    </message>
    <message>
        <source>an image file</source>
        <translation>图像文件</translation>
    </message>
    <message>
        <source>file</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>array name in an .npz (default {name})</source>
        <translation>.npz 中的数组名（默认 {name}）</translation>
    </message>
    <message>
        <source>array</source>
        <translation>数组</translation>
    </message>
    <message>
        <source>layout</source>
        <translation>布局</translation>
    </message>
    <message>
        <source>scale</source>
        <translation>缩放</translation>
    </message>
    <message>
        <source>mean (per channel)</source>
        <translation>均值（每通道）</translation>
    </message>
    <message>
        <source>std (per channel)</source>
        <translation>标准差（每通道）</translation>
    </message>
    <message>
        <source>channel order</source>
        <translation>通道顺序</translation>
    </message>
    <message>
        <source>every element {value}</source>
        <translation>每个元素都为 {value}</translation>
    </message>
    <message>
        <source>Value of {name}</source>
        <translation>{name} 的值</translation>
    </message>
</context>
</TS>
